import Glibc
import JukeboxCore
import JukeboxStore
import Logging

/// Where the playing position (and the volume and the current queue entry) goes between
/// database transactions: two 48-byte journals. A seek, a pause, a volume change, a skip or a
/// track change that leaves the queue's entries as they were is saved here alone, so a turning
/// knob or a skipping thumb costs the card one sector per checkpoint, not a transaction.
///
/// - In RAM (`/dev/shm`): rewritten every second. It survives a crash or `kill -9` of the
///   daemon, costs the SD card nothing, and is gone after a reboot.
/// - Beside the database: one O_DIRECT sector, fdatasync'd every `sync_interval_s` (4 s) while
///   playing and at once (at most every 2 s) after a user's action, so the card sees 512
///   bytes per checkpoint. With `[resume] checkpoint_device`, on that device instead while
///   it can be opened (`CardCheckpoint` orders the two across a start without it).
///
/// Both carry one increasing sequence number; on start the newest valid record wins. The
/// RAM file's name carries the database file's device and inode, so a rebuilt database
/// never takes a stale record.
final class ResumeJournal {
    /// The newest record and where it came from.
    struct Found {
        var entry: PositionJournal.Entry
        /// True when only the disk journal had it: the RAM journal is gone or older, so the
        /// machine restarted (a power cut or a reboot) since it was written.
        var survivedRestart: Bool
    }

    /// Where the card checkpoints go: the device, or the file beside the database.
    private let disk: PositionJournal?
    private let ram: PositionJournal?
    private let deviceUse: DeviceUse
    /// The file stands in for a configured device: records are marked (`CardCheckpoint`).
    private let marksRecords: Bool
    private var sequence: UInt64

    private enum DeviceUse {
        case notConfigured
        case unavailable
        /// The device is `disk`; the file beside the database (when it exists) is still read.
        case opened(besideDatabase: PositionJournal?)
    }

    /// `checkpointDevice` (`[resume] checkpoint_device`), when not empty, takes the disk
    /// journal instead of the file beside the database; if it cannot be used, that is said
    /// once and the file beside the database is used, its records marked as standing in.
    init(databasePath: String, checkpointDevice: String = "", logger: Logger) {
        if checkpointDevice.isEmpty {
            disk = PositionJournal.open(databasePath: databasePath, logger: logger)
            deviceUse = .notConfigured
        } else {
            do {
                let device = try PositionJournal.openDevice(path: checkpointDevice, logger: logger)
                disk = device
                let besideDatabase = databasePath + PositionJournal.suffix
                deviceUse = .opened(
                    besideDatabase: try? PositionJournal(path: besideDatabase, logger: logger, create: false))
                logger.info(
                    "power-cut checkpoints go to \(checkpointDevice)\(device.writesSectors ? " (one sector each)" : "")"
                )
            } catch {
                logger.error("checkpoint_device not used: \(error); checkpointing beside the database instead")
                disk = PositionJournal.open(databasePath: databasePath, logger: logger)
                deviceUse = .unavailable
            }
        }
        if let path = Self.ramPath(databasePath: databasePath), access("/dev/shm", W_OK) == 0 {
            ram = try? PositionJournal(path: path, logger: logger)
        } else {
            ram = nil
        }
        let card = Self.card(disk: disk, deviceUse: deviceUse)
        marksRecords = card.marksRecords
        sequence = max(card.lastSequence, ram?.lastSequence ?? 0)
        // On the device first, then the mark cleared: a power cut between the two finds the
        // same record twice, never a marked file older than the device.
        if let moving = card.movingToDevice, let disk, case .opened(let besideDatabase?) = deviceUse,
            disk.write(moving) != 0, disk.sync(), besideDatabase.write(moving) != 0, besideDatabase.sync()
        {
            logger.info(
                "the newest checkpoint was beside the database, written while \(checkpointDevice) could not be used; moved onto it"
            )
        }
    }

    /// The RAM journal of the database at `databasePath` (nil when it does not exist yet):
    /// named after its device and inode, so a database rebuilt elsewhere gets a fresh one.
    static func ramPath(databasePath: String) -> String? {
        var info = stat()
        guard stat(databasePath, &info) == 0 else { return nil }
        return "/dev/shm/jukebox-\(info.st_dev)-\(info.st_ino)-position"
    }

    /// The card's stores as they are now.
    private static func card(disk: PositionJournal?, deviceUse: DeviceUse) -> CardCheckpoint {
        switch deviceUse {
        case .notConfigured: CardCheckpoint(file: disk?.read(), device: .notConfigured)
        case .unavailable: CardCheckpoint(file: disk?.read(), device: .unavailable)
        case .opened(let besideDatabase):
            CardCheckpoint(file: besideDatabase?.read(), device: .opened(record: disk?.read()))
        }
    }

    /// The newest record: RAM's or the card's.
    func read() -> Found? {
        let inRAM = ram?.read()
        let onDisk = Self.card(disk: disk, deviceUse: deviceUse).newest
        switch (inRAM, onDisk) {
        case (nil, nil): return nil
        case (let r?, nil): return Found(entry: r, survivedRestart: false)
        case (nil, let d?): return Found(entry: d, survivedRestart: ram != nil)
        case (let r?, let d?):
            return d.sequence > r.sequence
                ? Found(entry: d, survivedRestart: true) : Found(entry: r, survivedRestart: false)
        }
    }

    /// New records must compare newer than `saved` (the database's last journal sequence).
    func continueAfter(_ saved: UInt64) { sequence = max(sequence, saved) }

    /// A number newer than every record written so far, for a database record that no
    /// journal record goes with (none is written under it).
    func newSequence() -> UInt64 {
        sequence += 1
        return sequence
    }

    /// The every-second record: RAM only (the disk journal when there is no /dev/shm).
    @discardableResult
    func record(_ entry: PositionJournal.Entry) -> UInt64 {
        let entry = numbered(entry)
        guard let target = ram ?? disk else { return 0 }
        return target.write(entry)
    }

    /// The power-cut checkpoint: both journals, the disk one fdatasync'd. Returns the
    /// sequence number written.
    @discardableResult
    func recordDurably(_ entry: PositionJournal.Entry) -> UInt64 {
        let entry = numbered(entry)
        ram?.write(entry)
        disk?.write(entry)
        disk?.sync()
        return entry.sequence
    }

    /// `entry` under the next number of the counter both journals share.
    private func numbered(_ entry: PositionJournal.Entry) -> PositionJournal.Entry {
        sequence += 1
        var entry = entry
        entry.sequence = sequence
        entry.inPlaceOfDevice = marksRecords
        return entry
    }
}
