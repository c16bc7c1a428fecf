import Foundation
import JukeboxTestSupport

/// The real `jukeboxd` binary that `swift build` made, run as a child process.
enum Jukeboxd {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The jukeboxd of the build these tests are part of (so a sanitizer build's tests run
    /// its sanitized daemon, `./dev test --sanitize`), else the one `swift build` made.
    static var binary: String {
        let root = Fixtures.repoRoot
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let beside = testBinary.deletingLastPathComponent().appendingPathComponent("jukeboxd").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        for candidate in [".build/debug/jukeboxd", ".build/release/jukeboxd"] {
            let path = "\(root)/\(candidate)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return "\(root)/.build/debug/jukeboxd"
    }

    /// Runs `jukeboxd ARGS` to completion (for --check-config and scan).
    static func run(_ arguments: [String]) throws -> Result {
        let result = try JukeboxTestSupport.run([binary] + arguments)
        return Result(status: result.status, stdout: result.stdoutText, stderr: result.stderrText)
    }
}

extension Fixtures {
    /// A config file under Tests/Fixtures/config/.
    static func config(_ name: String) -> String { "\(repoRoot)/Tests/Fixtures/config/\(name)" }
}
