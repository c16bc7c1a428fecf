/// Where a start finds the card's newest power-cut checkpoint, and how this run writes it.
///
/// With `[resume] checkpoint_device` set, the checkpoint goes to the device when the start can
/// open it, and to the file beside the database when it cannot (the installed unit's
/// `checkpoint-file.sh` failed at this boot). A run that cannot read the device cannot know
/// how far its records went, so sequence numbers do not order the two stores: its records in
/// the file are marked `inPlaceOfDevice` instead. A start that opens the device takes a marked
/// record as the newest (only a run without the device writes it, and every start with the
/// device moves such a record onto the device and clears the mark before writing anything
/// else), and otherwise the higher sequence of the two (a file from before the device was set,
/// or written by a version without the mark). New records number on after every sequence it
/// read, so a record that goes to the device afterwards compares newer than both.
public struct CardCheckpoint: Sendable, Equatable {
    /// The configured checkpoint device as a start finds it.
    public enum Device: Sendable, Equatable {
        /// None configured: the file beside the database is the only store.
        case notConfigured
        /// Configured but it could not be opened: the file stands in for it, marked.
        case unavailable
        /// Opened, holding `record` (nil: none yet, zeros).
        case opened(record: JournalRecord?)
    }

    /// The record of the file beside the database (nil: none, or no file).
    public var file: JournalRecord?
    public var device: Device

    public init(file: JournalRecord?, device: Device) {
        self.file = file
        self.device = device
    }

    /// The newest record on the card that this start can read.
    public var newest: JournalRecord? {
        guard case .opened(let onDevice) = device else { return file }
        guard let file, let onDevice else { return file ?? onDevice }
        return file.inPlaceOfDevice || file.sequence > onDevice.sequence ? file : onDevice
    }

    /// The file's marked record that the start must write to the device (and sync) before
    /// it clears the mark in the file; nil when there is none to move.
    public var movingToDevice: JournalRecord? {
        guard case .opened = device, let file, file.inPlaceOfDevice else { return nil }
        var moved = file
        moved.inPlaceOfDevice = false
        return moved
    }

    /// The highest sequence this start read on the card; new records number on after it.
    public var lastSequence: UInt64 {
        guard case .opened(let onDevice) = device else { return file?.sequence ?? 0 }
        return max(file?.sequence ?? 0, onDevice?.sequence ?? 0)
    }

    /// Whether this run marks its records `inPlaceOfDevice`: the file stands in for the device.
    public var marksRecords: Bool { device == .unavailable }
}
