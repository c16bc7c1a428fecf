// jukebox-bench: jukeboxd side by side with mpg123 and MPD 0.23 on the same files, in one run.
// See docs/BENCHMARK.md. Sections: material cpu memory disk startup scan instructions mp4 cards vboard.
import ArgumentParser
import Foundation
import Glibc
import JukeboxTestSupport

@main
struct JukeboxBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jukebox-bench",
        abstract: "Benchmarks jukeboxd against mpg123 and MPD 0.23 on the same generated files.",
        discussion: """
            Sections: material (generate/reuse test files), cpu (CPU per minute of audio, unpaced), \
            memory (RSS while playing in real time), disk (writes and fsyncs per hour), \
            startup (exec -> first sample on auto-resume), scan (2,000-file library scan), \
            instructions (callgrind instruction counts of the cpu case), \
            mp4 (AAC in MP4 against ffmpeg: CPU per minute, and RSS while playing AAC and ALAC beside MP3), \
            cards (an NFC/RFID card read -> the first sample of its music at a paced sink), \
            vboard (boot to music on the virtual board: qemu, Debian's kernel, snd-aloop), \
            web (jukebox-web beside jukeboxd: RSS idle and during an upload, first page bytes, action and card → page times), \
            scale (libraries of 2,000, 20,000 and 100,000 files against MPD; only with --only scale). \
            Prints a table (metric | jukeboxd | peer | ratio | target | verdict) and writes it to <work>/results.md.
            """)

    static let sectionNames = [
        "material", "cpu", "memory", "disk", "startup", "scan", "instructions", "input", "control", "display",
        "menu", "mp4", "cards", "speed", "vboard", "web", "scale",
    ]
    /// Sections a run without --only leaves out: scale makes GBs of libraries and takes
    /// most of an hour on a shared machine.
    static let onRequest: Set = ["scale"]
    static let aliases = [
        "rss": "memory", "mem": "memory", "ttfb": "startup", "resume": "startup", "io": "disk",
        "writes": "disk", "decode": "cpu", "library": "scan", "instr": "instructions", "callgrind": "instructions",
    ]

    @Option(help: "Path of the jukeboxd binary (default: .build/release/jukeboxd if present).")
    var jukeboxd: String?

    @Option(help: "Work folder: material, configs, logs, results.md.")
    var work: String = "/tmp/jukebox-bench"

    @Flag(help: "Shorter run: fewer repetitions and shorter windows (under ~3 minutes).")
    var quick = false

    @Option(
        help:
            "Library sizes of the scale section, comma-separated (default 2000,20000,100000; 2000,20000 with --quick).")
    var scaleSizes: String?

    @Option(help: "Run only these sections (comma-separated, repeatable): \(sectionNames.joined(separator: ", ")).")
    var only: [String] = []

    mutating func run() throws {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGINT) { _ in
            ChildRegistry.shared.killAll(); _exit(130)
        }
        signal(SIGTERM) { _ in
            ChildRegistry.shared.killAll(); _exit(143)
        }

        var wanted = Self.sectionNames.filter { !Self.onRequest.contains($0) }
        if !only.isEmpty {
            wanted = []
            for raw in only.flatMap({ $0.split(separator: ",") }) {
                let s = Self.aliases[String(raw).lowercased()] ?? String(raw).lowercased()
                guard Self.sectionNames.contains(s) else {
                    throw ValidationError(
                        "unknown section '\(raw)'; sections: \(Self.sectionNames.joined(separator: ", "))")
                }
                if !wanted.contains(s) { wanted.append(s) }
            }
            wanted = Self.sectionNames.filter(wanted.contains)
        }
        let workDir = URL(fileURLWithPath: work).standardizedFileURL.path
        try mkdirs(workDir)

        var jb = jukeboxd
        if jb == nil, fileExists(".build/release/jukeboxd") { jb = ".build/release/jukeboxd" }
        if let p = jb {
            let abs = URL(fileURLWithPath: p).standardizedFileURL.path
            if access(abs, X_OK) != 0 { print("warning: \(abs) is not an executable file; jukeboxd runs will fail") }
            jb = abs
        }

        let report = Report()
        let t0 = Clock.seconds()
        let machine =
            "\(ProcessInfo.processInfo.activeProcessorCount) cores, "
            + ((readText("/proc/cpuinfo") ?? "").split(separator: "\n").first { $0.hasPrefix("model name") }?
                .split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? "?")
        func firstLine(_ argv: [String]) -> String {
            guard which(argv[0]) != nil, let (_, out) = try? capture(argv, stderr: .descriptor(1)) else {
                return "not installed"
            }
            return out.split(separator: "\n").first.map(String.init) ?? "?"
        }
        report.header = [
            "run: \(ISO8601DateFormatter().string(from: Date()))\(quick ? " (--quick)" : ""), sections: \(wanted.joined(separator: " "))",
            "machine: \(machine)",
            "jukeboxd: \(jb ?? "none")"
                + (jb.flatMap { try? fm.attributesOfItem(atPath: $0)[.modificationDate] as? Date }.map {
                    " (built \(ISO8601DateFormatter().string(from: $0)))"
                } ?? ""),
            "mpg123: \(firstLine(["mpg123", "--version"])); MPD: \(firstLine(["mpd", "--version"]))",
            "work: \(workDir)",
        ]
        for h in report.header { print(h) }
        if jb == nil { report.error("setup", "no jukeboxd given (--jukeboxd PATH): only the peers are measured") }

        let bench = Bench(work: workDir, jukeboxd: jb, quick: quick, report: report)
        // material is needed by every section but scale, which makes its own libraries
        if wanted.contains(where: { $0 != "scale" }) {
            do {
                print("\n== 1. material ==")
                let d = try bench.material.ensure {
                    print($0); fflush(nil)
                }
                report.note(d)
            } catch {
                report.error("material", "\(error)")
                finish(report, workDir, t0)
                throw ExitCode(1)
            }
        }
        for s in wanted {
            switch s {
            case "cpu": bench.sectionCPU()
            case "memory": bench.sectionMemory()
            case "disk": bench.sectionDisk()
            case "startup": bench.sectionStartup()
            case "scan": bench.sectionScan()
            case "instructions": bench.sectionInstructions()
            case "input": bench.sectionInput()
            case "control": bench.sectionControl()
            case "display": bench.sectionDisplay()
            case "menu": bench.sectionMenu()
            case "mp4": bench.sectionMP4()
            case "cards": bench.sectionCards()
            case "vboard": bench.sectionVirtualBoard()
            case "speed": bench.sectionSpeed()
            case "web": bench.sectionWeb()
            case "scale":
                bench.sectionScale(
                    sizes: scaleSizes.map { $0.split(separator: ",").compactMap { Int($0) } }
                        ?? (quick ? [2000, 20000] : [2000, 20000, 100_000]))
            default: break
            }
            try? writeText("\(workDir)/results.md", report.markdown())  // partial results survive a crash
        }
        finish(report, workDir, t0)
    }

    func finish(_ report: Report, _ workDir: String, _ t0: Double) {
        report.header.append(String(format: "duration: %.0f s", Clock.seconds() - t0))
        print("\n== results ==")
        print(report.plainTable())
        do {
            try writeText("\(workDir)/results.md", report.markdown())
            print("\nwritten to \(workDir)/results.md")
        } catch { print("cannot write \(workDir)/results.md: \(error)") }
        if !report.errors.isEmpty { print("\(report.errors.count) error(s); see above and results.md") }
    }
}
