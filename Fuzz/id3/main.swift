import JukeboxCore

// An MP3's ID3v2 tag as the daemon reads it (MusicFolder.id3Tag): decoded whole when it is
// unsynchronised as a whole, else walked in memory (a small tag, the scan) or in place; then
// every reader of its frames (APIC, TXXX, CHAP/CTOC) and the lyrics frames (USLT, SYLT).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let header = Array(bytes.prefix(10))
    let read: (Int64, Int) -> [UInt8]
    if let whole = ID3Tag.wholeTagUnsynchronisedSize(header) {
        guard whole <= 16 << 20 else { return 0 }
        let raw = Array(bytes.prefix(whole))
        read = memoryReader(Array(raw.prefix(10)) + ID3Tag.resynchronised(Array(raw.dropFirst(10))))
    } else if let tagSize = ID3Lyrics.tagSize(header), tagSize <= 256 << 10 {
        read = memoryReader(Array(bytes.prefix(tagSize)))
    } else {
        read = fileReader(bytes)
    }
    if let tag = ID3Tag.read(read) {
        _ = tag.firstPicture(read)
        _ = tag.userTexts(read)
        _ = tag.chapters(read)
    }
    if let tagSize = ID3Lyrics.tagSize(header), tagSize <= 16 << 20 {
        _ = ID3Lyrics.parse(Array(bytes.prefix(tagSize)))
    }
    return 0
}
