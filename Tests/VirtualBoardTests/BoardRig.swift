import Foundation
import Glibc
import JukeboxTestSupport
import Testing

/// One virtual board for a suite (booting one takes ~10-30 s under TCG): the board with a
/// fresh ext4 state disk, the host folder shared as /host (the test music in /host/music)
/// and a pty on its second UART. Tests of a suite share it one at a time (`.serialized`).
final class BoardRig: @unchecked Sendable {
    let folder: TemporaryDirectory
    let uart: PseudoTerminal
    let board: VirtualBoard
    let disk: String

    /// Boots a board; `disk` is an existing state disk image (after a power cut), else a new one.
    /// With `rootDisk` (`makeRootDisk`) the board's root is that disk, /dev/vdb, read-only.
    init(
        disk existing: String? = nil, folder existingFolder: TemporaryDirectory? = nil, rootDisk: String? = nil
    ) throws {
        folder = try existingFolder ?? Self.makeFolder()
        removedAtExit(folder)
        disk = existing ?? folder.file("state.img")
        if existing == nil { try VirtualBoard.makeStateDisk(at: disk) }
        uart = try PseudoTerminal()
        var options = VirtualBoard.Options(disk: disk, hostFolder: folder.path, uart: uart.slavePath)
        if let rootDisk {
            options.qemuArguments += ["-drive", "file=\(rootDisk),format=raw,if=virtio,cache=writeback"]
            options.kernelArguments.append("vboard.root=/dev/vdb")
        }
        board = try VirtualBoard(options)
        print("virtual board up in \(String(format: "%.1f", board.bootSeconds)) s (\(VirtualBoard.accelerator))")
    }

    /// An ext4 disk image holding the board's image tree (what its initramfs holds: busybox,
    /// jukeboxd, its libraries, the modules, /init), for `rootDisk`.
    static func makeRootDisk(at path: String) throws {
        let initramfs = try VirtualBoard.image.get().initramfs
        let tree = (initramfs as NSString).deletingLastPathComponent + "/root"
        let made = try run(["mkfs.ext4", "-q", "-F", "-b", "4096", "-L", "jukebox-root", "-d", tree, path, "96M"])
        guard made.status == 0 else { throw VirtualBoard.Failure("mkfs.ext4 -d \(tree) \(path): \(made.stderrText)") }
    }

    /// The host folder with the test music: the gapless parts, two MP3s, a 1 kHz sine and a
    /// second of silence.
    static func makeFolder() throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory(prefix: "jukebox-vboard-host")
        let music = folder.file("music")
        try FileManager.default.createDirectory(atPath: music + "/gapless", withIntermediateDirectories: true)
        for file in ["gapless/part1.mp3", "gapless/part2.mp3", "gapless/part3.mp3", "mp3/cbr128.mp3", "mp3/vbr_v2.mp3"]
        {
            let target = music + "/" + (file.hasPrefix("mp3/") ? (file as NSString).lastPathComponent : file)
            try FileManager.default.copyItem(atPath: Fixtures.media(file), toPath: target)
        }
        let sine = try run([
            "sox", "-D", "-n", "-r", "44100", "-c", "2", "-b", "16", music + "/sine1k.wav", "synth", "3", "sine",
            "1000",
            "vol", "0.5",
        ])
        let silence = try run([
            "sox", "-D", "-n", "-r", "44100", "-c", "2", "-b", "16", music + "/silence.wav", "trim", "0", "1",
        ])
        guard sine.status == 0, silence.status == 0 else {
            throw VirtualBoard.Failure("sox: \(sine.stderrText) \(silence.stderrText)")
        }
        return folder
    }

    /// A daemon config for the board: the music on /host, the database on the state disk,
    /// playing in order and starting stopped. The buffer is 2 s, not a board's 40 ms: an
    /// emulated CPU (TCG) on a busy host (the whole test suite running beside it) stops now
    /// and then for hundreds of ms, and every such underrun would put silence into what the
    /// tests compare sample for sample.
    static func config(
        name: String, device: String = "hw:Loopback,0,0", onStart: String = "off", startVolume: Int = 100,
        audioExtra: String = ""
    ) -> DaemonConfig {
        DaemonConfig(
            musicDir: "/host/music", database: "/state/\(name)/jukebox.sqlite", device: device, pacing: "device",
            periodMs: 50, bufferMs: 2000, startVolume: startVolume, audioExtra: audioExtra, mode: "in-order",
            onStart: onStart)
    }
}

/// Why the suites are skipped here, said loudly.
let virtualBoardSkip = Comment(
    rawValue: "VIRTUAL BOARD NOT RUN: \(VirtualBoard.unavailableReason ?? "") (docs/VIRTUAL-BOARD.md)")

/// Samples as `mpg123 --gapless -s` decodes `files` on the host.
func referenceDecode(_ files: [String]) throws -> [Int16] {
    let bytes = try run(["/usr/bin/mpg123", "-q", "--gapless", "-s"] + files).stdout
    return bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
}

/// Where `reference` starts in `capture` (which has silence before and after it): the first
/// sounding sample of each lined up, to the frame.
func offset(of reference: [Int16], in capture: [Int16]) -> Int? {
    guard let r = reference.firstIndex(where: { $0 != 0 }), let c = capture.firstIndex(where: { $0 != 0 }) else {
        return nil
    }
    let start = (c - r) & ~1
    return start >= 0 && start + reference.count <= capture.count ? start : nil
}

/// Largest absolute difference of two sample runs, over the shorter.
func maxDifference(_ a: ArraySlice<Int16>, _ b: ArraySlice<Int16>) -> Int {
    zip(a, b).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
}

/// The rigs' host folders (with their 64 MB disk images), removed when the test process
/// exits: the suite's rig is a static, never released.
nonisolated(unsafe) private var rigFolders: [TemporaryDirectory] = []
private let removeRigFoldersAtExit: Void = { atexit { for folder in rigFolders { folder.remove() } } }()

private func removedAtExit(_ folder: TemporaryDirectory) {
    _ = removeRigFoldersAtExit
    rigFolders.append(folder)
}
