import TOML
import Testing

@testable import JukeboxCore

/// The `[snapcast]` keys: the FIFO of snapserver's pipe source and its sample format.
@Suite struct SnapcastConfigTests {
    typealias Entry = ConfigDocument.Entry

    static func validate(_ entries: [Entry]) -> (JukeboxConfig?, [String]) {
        let all = [Entry(table: "", key: "music_dir", value: .string("/music"), line: 1)] + entries
        let document = ConfigDocument(fileName: "jukebox.toml", tables: [(name: "snapcast", line: 2)], entries: all)
        let result = ConfigValidator.validate(document) { _ in nil }
        return (result.config, result.diagnostics.map(\.description))
    }

    @Test func offByDefault() throws {
        let config = try #require(Self.validate([]).0)
        #expect(config.snapcast.fifo == "")
        #expect(config.snapcast.rate == 48000)
        #expect(config.snapcast.name == "Snapcast")
    }

    @Test func everyKey() throws {
        let (config, problems) = Self.validate([
            Entry(table: "snapcast", key: "fifo", value: .string("/tmp/snapfifo"), line: 3),
            Entry(table: "snapcast", key: "sample_format", value: .string("44100:16:2"), line: 4),
            Entry(table: "snapcast", key: "name", value: .string("House"), line: 5),
        ])
        #expect(problems == [])
        #expect(config?.snapcast.fifo == "/tmp/snapfifo")
        #expect(config?.snapcast.rate == 44100)
        #expect(config?.snapcast.name == "House")
    }

    /// Only S16 stereo is written; anything else is one clear line.
    @Test(arguments: ["48000:24:2", "48000:16:1", "48000", "fast:16:2", "4000:16:2"])
    func otherSampleFormatsAreRefused(_ format: String) {
        let (config, problems) = Self.validate([
            Entry(table: "snapcast", key: "sample_format", value: .string(format), line: 4)
        ])
        #expect(config == nil)
        #expect(
            problems == [
                "jukebox.toml:4: snapcast.sample_format: must be RATE:16:2 (16-bit stereo, a rate from 8000 to "
                    + "192000, as the source's sampleformat in snapserver.conf), found '\(format)'"
            ])
    }
}
