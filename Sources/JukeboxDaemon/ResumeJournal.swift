import Glibc
import JukeboxStore
import Logging

/// Where the playing position (and the volume) goes between database transactions: two
/// 40-byte journals. A seek, a pause or a volume change that leaves the queue as it was is
/// saved here alone, so a turning knob costs the card one sector per 2 s, not a transaction.
///
/// - In RAM (`/dev/shm`): rewritten every second. It survives a crash or `kill -9` of the
///   daemon, costs the SD card nothing, and is gone after a reboot.
/// - Beside the database: one O_DIRECT sector, fdatasync'd every `sync_interval_s` (2 s),
///   so a pulled plug loses at most that much and the card sees 512 bytes per checkpoint.
///
/// Both carry one increasing sequence number; on start the newest valid record wins. The
/// RAM file's name carries the database file's device and inode, so a rebuilt database
/// never takes a stale record.
final class ResumeJournal {
    private let disk: PositionJournal?
    private let ram: PositionJournal?
    private var sequence: UInt64

    init(databasePath: String, logger: Logger) {
        disk = PositionJournal.open(databasePath: databasePath, logger: logger)
        var info = stat()
        if stat(databasePath, &info) == 0, access("/dev/shm", W_OK) == 0 {
            let path = "/dev/shm/jukebox-\(info.st_dev)-\(info.st_ino)-position"
            ram = try? PositionJournal(path: path, logger: logger)
        } else {
            ram = nil
        }
        sequence = max(disk?.lastSequence ?? 0, ram?.lastSequence ?? 0)
    }

    /// The newest record of the two.
    func read() -> PositionJournal.Entry? {
        [ram?.read(), disk?.read()].compactMap { $0 }.max { $0.sequence < $1.sequence }
    }

    /// New records must compare newer than `saved` (the database's last journal sequence).
    func continueAfter(_ saved: UInt64) { sequence = max(sequence, saved) }

    /// The every-second record: RAM only (the disk journal when there is no /dev/shm).
    @discardableResult
    func record(trackID: Int64, positionMs: Int64, volume: Int) -> UInt64 {
        sequence += 1
        guard let target = ram ?? disk else { return 0 }
        return target.write(trackID: trackID, positionMs: positionMs, volume: volume, sequence: sequence)
    }

    /// The power-cut checkpoint: both journals, the disk one fdatasync'd.
    func recordDurably(trackID: Int64, positionMs: Int64, volume: Int) {
        sequence += 1
        ram?.write(trackID: trackID, positionMs: positionMs, volume: volume, sequence: sequence)
        disk?.write(trackID: trackID, positionMs: positionMs, volume: volume, sequence: sequence)
        disk?.sync()
    }
}
