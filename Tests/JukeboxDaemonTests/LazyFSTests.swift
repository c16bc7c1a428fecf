import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import SQLite
import Testing

/// `Tests/Tools/lazyfs.py` really loses what was not synced, and only that: the power-cut
/// test on it proves something only if these hold.
@Suite(.serialized, .enabled(if: LazyFS.isUsable, "needs root, /dev/fuse and python3-fusepy (Tests/Tools/lazyfs.py)"))
struct LazyFSTests {
    @Test func aCutLeavesWhatTheLastSyncMadeDurable() throws {
        try onAFreshMount { fs in
            let a = [UInt8](repeating: 0x41, count: 10_000)
            do {
                let file = try FileDescriptor(path: fs.mountpoint + "/file", flags: O_RDWR | O_CREAT)
                try file.writeAll(a, count: a.count, at: 0)
                try file.syncData()
                let b = [UInt8](repeating: 0x42, count: 6000)
                try file.writeAll(b, count: b.count, at: 5000)  // over A's second half and 1000 bytes past it
                // Written, never synced.
                let never = try FileDescriptor(path: fs.mountpoint + "/never-synced", flags: O_RDWR | O_CREAT)
                try never.writeAll(Array("gone".utf8))
            }
            #expect(try readWholeFile(fs.mountpoint + "/file").count == 11_000)

            let cut = try fs.cut()
            #expect(cut.lost == ["file": 5000 + 1000, "never-synced": 4], "\(cut.line)")
            #expect(access(fs.mountpoint + "/file", F_OK) != 0, "the mount still answers after the cut")
            try fs.remount()
            #expect(try readWholeFile(fs.mountpoint + "/file") == a)
            #expect(try readWholeFile(fs.mountpoint + "/never-synced").isEmpty)
        }
    }

    /// The daemon's disk journal opens with O_DIRECT; FUSE accepts that, and the write still
    /// needs its fdatasync.
    @Test func oDirectOpensWorkAndStillNeedASync() throws {
        try onAFreshMount { fs in
            let sector = UnsafeMutableRawBufferPointer.allocate(byteCount: 512, alignment: 4096)
            defer { sector.deallocate() }
            do {
                let file = try FileDescriptor(
                    path: fs.mountpoint + "/journal", flags: O_RDWR | O_CREAT | FileDescriptor.directIO)
                sector.initializeMemory(as: UInt8.self, repeating: 1)
                try file.writeAll(sector.baseAddress!, count: 512, at: 0)
                try file.syncData()
                sector.initializeMemory(as: UInt8.self, repeating: 2)
                try file.writeAll(sector.baseAddress!, count: 512, at: 0)
            }
            let cut = try fs.cut()
            #expect(cut.directOpens == 1 && cut.lost == ["journal": 512], "\(cut.line)")
            try fs.remount()
            #expect(try readWholeFile(fs.mountpoint + "/journal") == [UInt8](repeating: 1, count: 512))
        }
    }

    /// SQLite in WAL mode on the mount (shared mmap of -shm, POSIX locks, truncate): a commit
    /// with synchronous=FULL survives the cut, one with synchronous=OFF does not, and the
    /// database stays sound.
    @Test func sqliteKeepsTheFullCommitAndLosesTheUnsyncedOne() throws {
        try onAFreshMount { fs in
            let path = fs.mountpoint + "/test.sqlite"
            do {
                var options = Connection.Options()
                options.writeAheadLog = false  // switched below with synchronous=FULL: a durable header
                options.checkpointOnClose = false  // the close must not write (and unsync) the main file
                let connection = try Connection(path: path, options: options)
                try connection.execute("PRAGMA synchronous=FULL; PRAGMA journal_mode=WAL")
                try connection.transaction(durable: true) {
                    try connection.execute("CREATE TABLE t(x TEXT); INSERT INTO t VALUES ('durable')")
                }
                try connection.execute("PRAGMA synchronous=OFF")
                try connection.transaction { try connection.execute("INSERT INTO t VALUES ('lost')") }
                #expect(try connection.strings("SELECT x FROM t ORDER BY rowid") == ["durable", "lost"])
            }
            let cut = try fs.cut()
            #expect(cut.lost["test.sqlite-wal", default: 0] > 0, "\(cut.line)")
            try fs.remount()
            do {
                let connection = try Connection(path: path)
                #expect(try connection.strings("PRAGMA integrity_check") == ["ok"])
                #expect(try connection.strings("SELECT x FROM t ORDER BY rowid") == ["durable"])
            }
        }
    }

    /// A new database opened as the daemon opens it (WAL, no checkpoint at close) keeps its
    /// first durable commit through a cut. Its main file holds only the header page until a
    /// checkpoint; had that page not been synced, the file would come back empty and SQLite
    /// would delete the WAL, durable commit and all.
    @Test func aNewDatabaseKeepsItsFirstDurableCommit() throws {
        try onAFreshMount { fs in
            let path = fs.mountpoint + "/new.sqlite"
            var options = Connection.Options()
            options.checkpointOnClose = false
            do {
                let connection = try Connection(path: path, options: options)
                try connection.transaction(durable: true) {
                    try connection.execute("CREATE TABLE t(x TEXT); INSERT INTO t VALUES ('durable')")
                }
            }
            let cut = try fs.cut()
            try fs.remount()
            do {
                let connection = try Connection(path: path, options: options)
                #expect(try connection.strings("PRAGMA integrity_check") == ["ok"])
                #expect(
                    try connection.strings("SELECT name FROM sqlite_schema WHERE name = 't'") == ["t"],
                    "the database came back empty; the cut: \(cut.line)")
            }
        }
    }

    /// Runs `body` on a fresh mount in a temporary directory, then unmounts it (it must be
    /// left with nothing open).
    private func onAFreshMount(_ body: (LazyFS) throws -> Void) throws {
        let dir = try TemporaryDirectory(prefix: "lazyfs-test")
        defer { dir.remove() }
        let fs = try LazyFS(backing: dir.file("backing"), mountpoint: dir.file("mnt"))
        defer { fs.detach() }  // before the directory goes, also when `body` throws
        try body(fs)
        try fs.unmount()
    }
}
