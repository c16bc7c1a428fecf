/// Where playback is, as the position journal holds it (in RAM every second, on the card at
/// each checkpoint). The store's `PositionJournal` reads and writes it; `ResumeKeeper`
/// decides when and reads it back on start.
public struct JournalRecord: Equatable, Sendable {
    public var trackID: TrackID
    public var positionMs: Int64
    /// Increases with every write; compare with the database record's journal sequence.
    public var sequence: UInt64
    /// The volume when written (nil in version 1 records).
    public var volume: Int?
    /// The queue entry that was current (nil when none, and in version 1 and 2 records).
    public var queueIndex: Int?
    /// Whether it was playing (the position moving) when written; false in old records.
    public var playing: Bool
    /// Where to start reading the track to reach the position fast (nil: none known).
    public var seekHint: SeekHint?
    /// Written to the file beside the database by a run that could not open the configured
    /// checkpoint device: newer than anything on the device (`CardCheckpoint`).
    public var inPlaceOfDevice: Bool

    public init(
        trackID: TrackID, positionMs: Int64, sequence: UInt64, volume: Int? = nil, queueIndex: Int? = nil,
        playing: Bool = false, seekHint: SeekHint? = nil, inPlaceOfDevice: Bool = false
    ) {
        self.trackID = trackID
        self.positionMs = positionMs
        self.sequence = sequence
        self.volume = volume
        self.queueIndex = queueIndex
        self.playing = playing
        self.seekHint = seekHint
        self.inPlaceOfDevice = inPlaceOfDevice
    }
}
