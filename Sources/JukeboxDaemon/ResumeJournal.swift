import Glibc
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
///   bytes per checkpoint.
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

    private let disk: PositionJournal?
    private let ram: PositionJournal?
    private var sequence: UInt64

    /// `checkpointDevice` (`[resume] checkpoint_device`), when not empty, takes the disk
    /// journal instead of the file beside the database; if it cannot be used, that is said
    /// once and the file beside the database is used.
    init(databasePath: String, checkpointDevice: String = "", logger: Logger) {
        disk = Self.openDisk(databasePath: databasePath, checkpointDevice: checkpointDevice, logger: logger)
        if let path = Self.ramPath(databasePath: databasePath), access("/dev/shm", W_OK) == 0 {
            ram = try? PositionJournal(path: path, logger: logger)
        } else {
            ram = nil
        }
        sequence = max(disk?.lastSequence ?? 0, ram?.lastSequence ?? 0)
    }

    /// The RAM journal of the database at `databasePath` (nil when it does not exist yet):
    /// named after its device and inode, so a database rebuilt elsewhere gets a fresh one.
    static func ramPath(databasePath: String) -> String? {
        var info = stat()
        guard stat(databasePath, &info) == 0 else { return nil }
        return "/dev/shm/jukebox-\(info.st_dev)-\(info.st_ino)-position"
    }

    private static func openDisk(databasePath: String, checkpointDevice: String, logger: Logger) -> PositionJournal? {
        guard !checkpointDevice.isEmpty else { return PositionJournal.open(databasePath: databasePath, logger: logger) }
        let device: PositionJournal
        do {
            device = try PositionJournal.openDevice(path: checkpointDevice, logger: logger)
        } catch {
            logger.error("checkpoint_device not used: \(error); checkpointing beside the database instead")
            return PositionJournal.open(databasePath: databasePath, logger: logger)
        }
        // A device just taken into use starts with the record the file beside the database
        // holds, so switching loses no place.
        let besideDatabase = databasePath + PositionJournal.suffix
        if device.read() == nil,
            let old = (try? PositionJournal(path: besideDatabase, logger: logger, create: false))?.read()
        {
            device.write(old)
            device.sync()
        }
        logger.info(
            "power-cut checkpoints go to \(checkpointDevice)\(device.writesSectors ? " (one sector each)" : "")")
        return device
    }

    /// The newest record of the two.
    func read() -> Found? {
        let inRAM = ram?.read()
        let onDisk = disk?.read()
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
        return entry
    }
}
