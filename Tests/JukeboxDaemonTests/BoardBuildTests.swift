import Foundation
import JukeboxTestSupport
import Testing

/// The board build (Board/build-jukeboxd.sh, which `./dev test` runs before the tests): the
/// functions Board/jukeboxd.order lists come first in the code, side by side, so that the
/// pages the kernel maps around each fault hold code in use (docs/design/MEMORY.md, "Resident
/// memory").
@Suite struct BoardBuildTests {
    static let binary = "\(Fixtures.repoRoot)/.build-static/release/jukeboxd"
    static let order = "\(Fixtures.repoRoot)/Board/jukeboxd.order"

    @Test(.enabled(if: FileManager.default.fileExists(atPath: binary)))
    func orderedFunctionsComeFirstTogether() throws {
        let listed = Set(
            try String(contentsOfFile: Self.order, encoding: .utf8).split(separator: "\n").map(String.init))
        let nm = try run(["nm", "--defined-only", "--numeric-sort", "--print-size", Self.binary])
        #expect(nm.status == 0, "\(nm.stderrText)")
        // Code symbols in address order: address, size, name.
        let code: [(address: UInt64, size: UInt64, name: String)] = nm.stdoutText.split(separator: "\n").compactMap {
            let fields = $0.split(separator: " ")
            guard fields.count == 4, "tTwW".contains(fields[2]), let address = UInt64(fields[0], radix: 16),
                let size = UInt64(fields[1], radix: 16)
            else { return nil }
            return (address, size, String(fields[3]))
        }
        let ordered = code.filter { listed.contains($0.name) }
        // The order is written from a build of this code: most of its functions are still here.
        #expect(ordered.count * 4 >= listed.count * 3, "\(ordered.count) of \(listed.count) listed functions found")
        guard let start = code.first?.address else { return }
        // Together from the start of the code: of their bytes, most lie in the first stretch
        // of code as long as their size and a quarter (alignment padding, and the functions a
        // listed name shares a section with). The rest: the names of the standard library's
        // one large section, listed last. Unordered, about a third would.
        let size = ordered.reduce(0) { $0 + $1.size }
        let leading = ordered.filter { $0.address + $0.size - start <= size + size / 4 }.reduce(0) { $0 + $1.size }
        #expect(leading * 5 >= size * 4, "\(leading) of the listed functions' \(size) bytes lead the code")
    }

    /// The board build says which commit it was built from; a development build says so.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: binary)))
    func versionNamesTheCommit() throws {
        let head = try run(["git", "-C", Fixtures.repoRoot, "rev-parse", "--short=12", "HEAD"])
        let version = try run([Self.binary, "--version"])
        #expect(version.status == 0, "\(version.stderrText)")
        #expect(version.stdoutText.hasPrefix("jukeboxd "), "\(version.stdoutText)")
        #expect(
            version.stdoutText.contains("(commit \(head.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines))"),
            "\(version.stdoutText)")
    }

    /// Nothing of the checkout's path is in what a box runs (the binary without its debug
    /// information, as the package installs it): a build folder baked in would be searched on
    /// every box and leak the builder's paths.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: binary)))
    func noBuildPathInTheBinary() throws {
        let dir = try TemporaryDirectory(prefix: "jukebox-strip")
        defer { dir.remove() }
        let stripped = dir.file("jukeboxd")
        let strip = try run(["objcopy", "--strip-debug", Self.binary, stripped])
        #expect(strip.status == 0, "\(strip.stderrText)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: stripped))
        #expect(bytes.range(of: Data(Fixtures.repoRoot.utf8)) == nil, "\(Fixtures.repoRoot) is in the binary")
    }
}
