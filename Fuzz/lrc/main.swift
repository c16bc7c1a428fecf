import JukeboxCore

// An .lrc file (any text encoding) as the daemon reads it, and the lyrics timeline placing
// positions through it (the display's current line and word).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let lyrics = Lyrics.parse(bytes: fuzzBytes(data, size), fileName: "song.lrc")
    let timeline = LyricTimeline(lyrics: lyrics)
    for line in lyrics.lines.prefix(64) {
        _ = timeline.moment(at: line.timeMs)
        _ = timeline.moment(at: line.timeMs &+ 1)
    }
    _ = timeline.moment(at: -1)
    _ = timeline.moment(at: .max)
    return 0
}
