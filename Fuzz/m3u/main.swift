import JukeboxCore

// A stored playlist (.m3u, any text encoding), its entries resolved against the music folder.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let entries = M3U.entries(of: fuzzBytes(data, size), musicDir: "/srv/music")
    _ = M3U.bytes(of: entries)
    return 0
}
