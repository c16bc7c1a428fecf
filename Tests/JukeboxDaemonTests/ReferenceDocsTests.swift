import Foundation
import JukeboxCore
import JukeboxTestSupport
import Testing

/// The generated references in docs/ stay what the code's tables make of them. With
/// `JUKEBOX_WRITE_REFERENCE=1` the test writes them instead.
@Suite struct ReferenceDocsTests {
    @Test func configReferenceMatchesTheValidatorAndTheAnnotatedConfig() throws {
        let annotated = try String(contentsOfFile: "\(Fixtures.repoRoot)/config/jukebox.toml", encoding: .utf8)
        let (keys, problems) = ConfigReference.keys(annotated: ConfigReference.annotatedKeys(in: annotated))
        #expect(problems.isEmpty, "config/jukebox.toml and the validator differ:\n\(problems.joined(separator: "\n"))")
        try expectGenerated(ConfigReference.markdown(keys), at: "docs/CONFIG.md")
    }

    func expectGenerated(_ text: String, at path: String) throws {
        let url = URL(fileURLWithPath: "\(Fixtures.repoRoot)/\(path)")
        if ProcessInfo.processInfo.environment["JUKEBOX_WRITE_REFERENCE"] == "1" {
            try text.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let committed = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        #expect(committed == text, "\(path) is out of date: run this test with JUKEBOX_WRITE_REFERENCE=1")
    }
}
