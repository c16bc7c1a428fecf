import JukeboxCore

// An Ogg Vorbis or Opus file's comment header, put together from its pages as MusicFolder
// does for readcomments and readpicture: the comments, and the METADATA_BLOCK_PICTURE entry
// decoded from base64 and read as a FLAC PICTURE block.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let read = fileReader(fuzzBytes(data, size))
    _ = OggComments.firstPicture(read)
    _ = OggComments.comments(read)
    return 0
}
