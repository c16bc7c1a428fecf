import TOML
import Testing

@testable import JukeboxCore

/// The `[card_reader.NAME]` tables, from TOML text as a user writes it.
@Suite struct CardReaderConfigTests {
    static func validate(_ text: String) throws -> (JukeboxConfig?, [String]) {
        let document = try TOMLParser.parse("music_dir = \"/m\"\n" + text, fileName: "jukebox.toml").get()
        let result = ConfigValidator.validate(document) { _ in nil }
        return (result.config, result.diagnostics.map(\.description))
    }

    @Test func noReadersByDefault() throws {
        #expect(try #require(Self.validate("").0).cardReaders == [])
    }

    @Test func oneTablePerReaderInTheFilesOrder() throws {
        let (config, problems) = try Self.validate(
            """
            [card_reader.usb]
            type = "keyboard"
            device = "/dev/input/by-id/usb-reader-event-kbd"

            [card_reader.lid]
            type = "pn532"
            bus = "i2c"
            device = "/dev/i2c-1"
            i2c_address = 0x24
            poll_ms = 150
            timeout_ms = 50

            [card_reader.side]
            type = "mfrc522"
            device = "/dev/spidev0.0"
            """)
        #expect(problems == [])
        let readers = try #require(config).cardReaders
        #expect(readers.map(\.name) == ["usb", "lid", "side"])
        #expect(readers.map(\.kind) == [.keyboard, .pn532, .mfrc522])
        #expect(readers.map(\.effectiveBus) == [nil, .i2c, .spi])
        #expect(readers[1].pollMs == 150)
        #expect(readers[1].timeoutMs == 50)
        #expect(readers[2].pollMs == 100)
    }

    @Test func aPN532IsOnTheUARTUnlessToldOtherwise() throws {
        let config = try #require(
            Self.validate("[card_reader.a]\ntype = \"pn532\"\ndevice = \"/dev/serial0\"").0)
        #expect(config.cardReaders.first?.effectiveBus == .uart)
    }

    @Test(arguments: [
        (
            "[card_reader.a]\ntyp = \"pn532\"\ndevice = \"/dev/serial0\"",
            [
                "jukebox.toml:3: card_reader.a.typ: unknown key 'typ'; did you mean 'type'?",
                "jukebox.toml:2: card_reader.a.type: required: one of keyboard, pn532 or mfrc522",
            ]
        ),
        (
            "[card_reader.a]\ntype = \"pn533\"\ndevice = \"/dev/serial0\"",
            ["jukebox.toml:3: card_reader.a.type: must be one of keyboard, pn532 or mfrc522, found 'pn533'"]
        ),
        (
            "[card_reader.a]\ntype = \"mfrc522\"",
            ["jukebox.toml:2: card_reader.a.device: required: the reader's device, like /dev/spidev0.0"]
        ),
        (
            "[card_reader.a]\ntype = \"mfrc522\"\nbus = \"i2c\"\ndevice = \"/dev/spidev0.0\"",
            ["jukebox.toml:4: card_reader.a.bus: a mfrc522 is read over spi, found 'i2c'"]
        ),
        (
            "[card_reader.a]\ntype = \"keyboard\"\ndevice = \"/dev/input/event3\"\npoll_ms = 50",
            [
                "jukebox.toml:5: card_reader.a.poll_ms: only for board readers (pn532, mfrc522): "
                    + "a keyboard reader sends its cards itself"
            ]
        ),
        (
            "[card_reader.a]\ntype = \"pn532\"\ndevice = \"/dev/serial0\"\ni2c_address = 0x24",
            ["jukebox.toml:5: card_reader.a.i2c_address: only for a reader on bus = \"i2c\""]
        ),
        (
            "[card_reader.a]\ntype = \"pn532\"\ndevice = \"/dev/serial0\"\npoll_ms = 2",
            ["jukebox.toml:5: card_reader.a.poll_ms: must be between 10 and 5000, found 2"]
        ),
        (
            "[card_reader.a]\ntype = \"pn532\"\ndevice = \"/dev/serial0\"\n"
                + "[card_reader.b]\ntype = \"pn532\"\ndevice = \"/dev/serial0\"",
            ["jukebox.toml:7: card_reader.b.device: /dev/serial0 is already used by [card_reader.a]"]
        ),
        (
            "[card_reader]\ntype = \"pn532\"",
            [
                "jukebox.toml:2: card_reader: a card reader needs a name: write [card_reader.NAME], "
                    + "e.g. [card_reader.front]"
            ]
        ),
        (
            "[card_readers.a]\ntype = \"pn532\"",
            ["jukebox.toml:2: card_readers.a: unknown table [card_readers.a]; did you mean [card_reader.a]?"]
        ),
    ])
    func typosGetOneClearMessage(text: String, expected: [String]) throws {
        let (config, problems) = try Self.validate(text)
        #expect(config == nil)
        #expect(problems == expected)
    }
}
