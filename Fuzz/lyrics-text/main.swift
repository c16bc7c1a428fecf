import JukeboxCore

// The text decoding of lyric, cue and playlist files: BOM, UTF-8, UTF-16, GB18030 (GBK).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    _ = LyricsTextDecoder.decode(bytes)
    _ = GB18030.decode(bytes, strict: true)
    _ = GB18030.decode(bytes, strict: false)
    return 0
}
