import Foundation
import Glibc
import JukeboxCore
import JukeboxTestSupport
import Testing

@testable import JukeboxDaemon

/// `jukeboxd input-replay` through the real binary, on recorded-style edge files
/// (Tests/Fixtures/input, made by make-edges.py: bounce of 0.1–2 ms on every transition).
/// Gestures come 5 ms (the default `debounce_ms`) after the first edge of the contact's transition.
@Suite struct InputReplayTests {
    static func fixture(_ name: String) -> String { Fixtures.path("Tests/Fixtures/input/\(name)") }

    @Test func buttonsRecordedWithGpiomon() throws {
        let result = try Jukeboxd.run([
            "input-replay", "--config", Self.fixture("pins.toml"), Self.fixture("buttons.gpiomon"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                # pin map: 5=encoder.a 6=encoder.b 13=switch 17=play_pause 22=previous 27=next
                   0.095  play_pause short
                   0.095  -> toggle
                   0.755  next short
                   0.755  -> next
                   2.105  next long
                   2.105  -> seek +10
                   2.405  next repeat
                   2.405  -> seek +10
                   3.365  previous short
                   3.365  -> previous
                   3.845  switch short
                   3.845  -> toggle
                   5.605  play_pause long
                   5.605  -> stop
                # 72 edges: 7 gestures, 0 detents, 7 commands

                """)
    }

    @Test func encoderInThePlainForm() throws {
        let result = try Jukeboxd.run([
            "input-replay", "--config", Self.fixture("pins.toml"), Self.fixture("encoder.txt"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let detents = lines.filter { $0.hasSuffix("encoder +1") || $0.hasSuffix("encoder -1") }
        #expect(detents.map { $0.hasSuffix("+1") ? 1 : -1 } == [1, 1, 1, 1, 1, -1, -1, -1])
        #expect(lines.filter { $0.hasSuffix("-> volume +2") }.count == 5)
        #expect(lines.filter { $0.hasSuffix("-> volume -2") }.count == 3)
        #expect(lines.last == "# 190 edges: 0 gestures, 8 detents, 8 commands")
    }

    @Test func libgpiod2FormatMappingsAndUnknownLines() throws {
        let directory = try TemporaryDirectory(prefix: "input-replay")
        defer { directory.remove() }
        let config = directory.file("j.toml")
        try """
        music_dir = "."
        [buttons]
        next = 27
        long_press_ms = 500
        next_long = "volume 30"
        next_short = "mode"
        [encoder]
        switch = 13
        switch_short = "none"
        switch_double = "shutdown"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let edges = directory.file("edges.txt")
        try """
        1700000000.100000000\tfalling\tgpiochip0 27
        1700000000.100800000\trising\tgpiochip0 27
        1700000000.101200000\tfalling\tgpiochip0 27
        1700000000.700000000\trising\tgpiochip0 27
        1700000001.000000000\tfalling\tgpiochip0 13
        1700000001.050000000\trising\tgpiochip0 13
        1700000001.150000000\tfalling\tgpiochip0 13
        1700000001.200000000\trising\tgpiochip0 13
        1700000002.000000000\tfalling\tgpiochip0 4
        1700000002.200000000\tfalling\tgpiochip0 27
        1700000002.300000000\trising\tgpiochip0 27
        """.write(toFile: edges, atomically: true, encoding: .utf8)
        let result = try Jukeboxd.run(["input-replay", "--config", config, edges])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                # pin map: 13=switch 27=next
                # warning: line 4 is not in the pin map; its edges are ignored
                   0.505  next long
                   0.505  -> volume 30
                   1.055  switch double
                   1.055  -> shutdown
                   2.205  next short
                   2.205  -> mode
                # 11 edges: 3 gestures, 0 detents, 3 commands

                """)
    }

    @Test func aBadLineIsReportedWithItsNumber() throws {
        let directory = try TemporaryDirectory(prefix: "input-replay")
        defer { directory.remove() }
        let edges = directory.file("edges.txt")
        try "0.1 17 0\n# fine\n0.2 seventeen 1\n".write(toFile: edges, atomically: true, encoding: .utf8)
        let result = try Jukeboxd.run(["input-replay", "--config", Self.fixture("pins.toml"), edges])
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("\(edges):3: expected 'seconds line value'"), "\(result.stderr)")
        let missing = try Jukeboxd.run(["input-replay", "--config", Self.fixture("pins.toml"), directory.file("nope")])
        #expect(missing.status == 66)
    }
}

/// config/jukebox.toml documents the control keys with the values the code uses.
@Test func theDocumentedControlDefaultsAreTheCodes() throws {
    let config = try #require(try CheckConfigTests.validatedShippedConfig("config/jukebox.toml"))
    var buttons = JukeboxConfig.Buttons()
    (buttons.playPause, buttons.next, buttons.previous) = (17, 27, 22)
    #expect(config.buttons == buttons)
    var encoder = JukeboxConfig.Encoder()
    (encoder.a, encoder.b, encoder.pushSwitch) = (5, 6, 13)
    #expect(config.encoder == encoder)
}
