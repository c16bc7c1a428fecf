/// Where to start reading a compressed file to reach a position fast: an MPEG frame's number
/// and byte offset, and the file's size when they were taken (a retagged or replaced file has
/// another size, and its offsets no longer hold). Taken while a track plays, saved with its
/// position, and given back when that position is resumed: without it, an exact seek in an
/// MP3 reads every frame header from the start, which for a resume deep into an hours-long
/// audiobook is the whole file read from the card.
public struct SeekHint: Equatable, Sendable {
    public var mpegFrame: Int64
    public var byteOffset: Int64
    public var fileSize: Int64

    public init(mpegFrame: Int64, byteOffset: Int64, fileSize: Int64) {
        self.mpegFrame = mpegFrame
        self.byteOffset = byteOffset
        self.fileSize = fileSize
    }
}
