/// The part of an audio file that a CUE sheet's track is: the library lists it as a track of
/// its own (`Album/album.cue/track0002`, as MPD names them), the player plays only these
/// frames of the file.
public struct CueSpan: Sendable, Hashable {
    /// The audio file, relative to `music_dir`.
    public var file: String
    /// The track's first sample frame in the file.
    public var startFrame: Int64
    /// The frame after its last one; nil when it plays to the end of the file.
    public var endFrame: Int64?
    /// Where it starts and ends in milliseconds, from the sheet's times as MPD reads them
    /// (its `Range:` line).
    public var startMs: Int64
    public var endMs: Int64?

    public init(file: String, startFrame: Int64, endFrame: Int64?, startMs: Int64, endMs: Int64?) {
        self.file = file
        self.startFrame = startFrame
        self.endFrame = endFrame
        self.startMs = startMs
        self.endMs = endMs
    }

    /// MPD's `Range:` value: `3.493-7.133`, or `7.133-` for a track that plays to the end.
    public var range: String {
        ReplyLine.seconds(startMs) + "-" + (endMs.map(ReplyLine.seconds) ?? "")
    }
}
