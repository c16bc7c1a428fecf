import JukeboxCore

// An MP4 file's atoms as the daemon walks them in place (MusicFolder): the first cover
// (`covr`) and the `©lyr` lyrics.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let read = fileReader(fuzzBytes(data, size))
    _ = MP4CoverAtoms.firstPicture(read, fileSize: Int64(size))
    _ = MP4LyricsAtom.read(read, fileSize: Int64(size))
    return 0
}
