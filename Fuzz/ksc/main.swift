import JukeboxCore

// A KSC karaoke script (any text encoding) as the daemon reads it, and the timeline through it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let lyrics = Lyrics.parse(bytes: fuzzBytes(data, size), fileName: "song.ksc")
    let timeline = LyricTimeline(lyrics: lyrics)
    for line in lyrics.lines.prefix(64) {
        for word in line.words.prefix(16) { _ = timeline.moment(at: word.timeMs) }
    }
    _ = timeline.moment(at: .max)
    return 0
}
