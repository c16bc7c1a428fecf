import JukeboxCore

// A FLAC file's metadata blocks (after an ID3v2 tag when one leads), walked in place as the
// daemon walks them (MusicFolder): the first PICTURE and the Vorbis comments.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let read = fileReader(fuzzBytes(data, size))
    guard let blocks = FLACMetadataBlocks.read(read) else { return 0 }
    _ = blocks.firstPicture(read)
    _ = blocks.comments(read)
    return 0
}
