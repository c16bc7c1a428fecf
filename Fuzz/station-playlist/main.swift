import JukeboxCore

// A radio station's playlist (.m3u, .pls) as downloaded: the stream URLs in it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let text = String(decoding: fuzzBytes(data, size), as: UTF8.self)
    _ = try? StationPlaylist.streams(in: text)
    _ = StationPlaylist.isPlaylist(url: text)
    _ = StationPlaylist.isStreamURL(text)
    return 0
}
