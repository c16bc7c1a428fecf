import JukeboxCore

// A radio stream's body with ICY metadata: the first two bytes the `icy-metaint` interval
// (as the header's number), the third the chunk size the network hands over, the rest the
// body; every metadata block is read into fields and a stream title.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard bytes.count >= 3 else { return 0 }
    let interval = Int(bytes[0]) << 8 | Int(bytes[1])
    let chunk = max(Int(bytes[2]), 1)
    let body = Array(bytes.dropFirst(3))
    var demuxer = ICYDemuxer(interval: interval)
    var audioBytes = 0
    var start = 0
    while start < body.count {
        let end = min(start + chunk, body.count)
        let blocks = body[start..<end].withUnsafeBytes { demuxer.feed($0) { audioBytes += $0.count } }
        for block in blocks { _ = OggStreamTitle.of(comments: block.fields) }
        start = end
    }
    precondition(audioBytes <= body.count)
    _ = ICYMetadata(block: body)
    return 0
}
