import Foundation
import JukeboxTestSupport

/// The real `jukeboxd` binary that `swift build` made, run as a child process.
enum Jukeboxd {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static var binary: String {
        let root = Fixtures.repoRoot
        for candidate in [".build/debug/jukeboxd", ".build/release/jukeboxd"] {
            let path = "\(root)/\(candidate)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return "\(root)/.build/debug/jukeboxd"
    }

    /// Runs `jukeboxd ARGS` to completion (for --check-config and scan).
    static func run(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}

extension Fixtures {
    /// A config file under Tests/Fixtures/config/.
    static func config(_ name: String) -> String { "\(repoRoot)/Tests/Fixtures/config/\(name)" }
}
