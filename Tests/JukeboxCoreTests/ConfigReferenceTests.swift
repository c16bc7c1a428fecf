import Testing

@testable import JukeboxCore

@Suite struct ConfigReferenceTests {
    static let annotated = """
        # The folder with your music.
        music_dir = "/home/pi/Music"

        [audio]
        # Any ALSA PCM name: "default", "hw:1,0".
        device = "default"   # a note
        # ALSA period in milliseconds.
        period_ms = 10
        # With a headphone switch: the line, and the maximum then.
        # headphone_chip = "gpiochip0"
        # headphone_detect = 6

        # Prose: auto = album when playing in order; see [buttons] shutdown_command.
        # [card_reader.lid]
        # type = "pn532"
        """

    @Test func readsKeysWithTheCommentAboveThem() {
        let keys = ConfigReference.annotatedKeys(in: Self.annotated)
        #expect(
            keys == [
                .init(
                    table: "", name: "music_dir", value: "\"/home/pi/Music\"", comment: "The folder with your music."),
                .init(
                    table: "audio", name: "device", value: "\"default\"",
                    comment: "Any ALSA PCM name: \"default\", \"hw:1,0\". a note"),
                .init(table: "audio", name: "period_ms", value: "10", comment: "ALSA period in milliseconds."),
                .init(
                    table: "audio", name: "headphone_chip", value: "\"gpiochip0\"",
                    comment: "With a headphone switch: the line, and the maximum then."),
                .init(
                    table: "audio", name: "headphone_detect", value: "6",
                    comment: "With a headphone switch: the line, and the maximum then."),
                .init(table: "card_reader.NAME", name: "type", value: "\"pn532\"", comment: ""),
            ])
    }

    @Test func namesKeysMissingOnEitherSide() {
        var keys = ConfigReference.annotatedKeys(in: Self.annotated)
        keys.append(.init(table: "audio", name: "perod_ms", value: "10", comment: ""))
        let problems = ConfigReference.keys(annotated: keys).problems
        #expect(problems.contains("audio.perod_ms: in the annotated config, not taken by the validator"))
        #expect(problems.contains("audio.buffer_ms: not in the annotated config"))
        #expect(!problems.contains { $0.hasPrefix("audio.period_ms") })
    }

    @Test func describesWhatEachKindAccepts() {
        let keys = ConfigReference.validatedKeys
        #expect(keys.contains { $0.table == "audio" && $0.name == "period_ms" && $0.accepts == "integer, 1 to 500" })
        #expect(
            keys.contains { $0.table == "card_reader.NAME" && $0.name == "bus" && $0.accepts.hasPrefix("one of: ") })
    }
}
