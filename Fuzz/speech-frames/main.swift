import JukeboxCore

// What the speech helper and the daemon read from each other's pipe (`SpeechHelperFrames`):
// the first byte the seconds asked for (1 to 4), the rest a stream of frames, read as the
// daemon reads replies and as the helper reads requests (each frame dropped from the front
// once whole). A reply never holds more samples than the seconds asked for at its rate, never
// takes more bytes than there are, and what is read is framed back the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let first = bytes.first else { return 0 }
    let seconds = Int(first % 4) + 1
    var replies = bytes.dropFirst()
    while case .frame(let reply, let length) = SpeechHelperFrames.decodeReply(replies, maxSeconds: seconds) {
        precondition(length <= replies.count)
        if case .spoken(let samples, let rate) = reply { precondition(samples.count <= seconds * rate) }
        let again = SpeechHelperFrames.encode(reply, maxSeconds: seconds)
        precondition(
            SpeechHelperFrames.decodeReply(again[...], maxSeconds: seconds) == .frame(reply, length: again.count))
        replies = replies.dropFirst(length)
    }
    var requests = bytes.dropFirst()
    while case .frame(let request, let length) = SpeechHelperFrames.decodeRequest(requests) {
        precondition(length <= requests.count)
        let again = try! SpeechHelperFrames.encode(request)
        precondition(SpeechHelperFrames.decodeRequest(again[...]) == .frame(request, length: again.count))
        requests = requests.dropFirst(length)
    }
    return 0
}
