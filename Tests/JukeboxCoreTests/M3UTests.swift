import Testing

@testable import JukeboxCore

/// Playlist files as MPD and desktop players write them.
@Suite struct M3UTests {
    static let music = "/home/pi/Music"

    static func entries(_ text: String) -> [String] { M3U.entries(of: Array(text.utf8), musicDir: music) }

    @Test func mpdsOwnFormatIsOnePathPerLine() {
        #expect(Self.entries("Ann/01 Alpha.mp3\nBob/Gamma.mp3\n") == ["Ann/01 Alpha.mp3", "Bob/Gamma.mp3"])
        #expect(Self.entries("") == [])
        // No final newline, blank lines and trailing blanks (MPD strips them; leading ones stay).
        #expect(Self.entries("\n a.mp3 \t\n\nb.mp3") == [" a.mp3", "b.mp3"])
    }

    @Test func extendedM3UFromADesktopPlayer() {
        let text = """
            #EXTM3U\r
            #EXTINF:183,Ann - Alpha\r
            /home/pi/Music/Ann/01 Alpha.mp3\r
            #EXTINF:-1,Bob - Gamma\r
            ./Bob/Gamma.mp3\r

            """
        #expect(Self.entries(text) == ["Ann/01 Alpha.mp3", "Bob/Gamma.mp3"])
    }

    @Test func byteOrderMarkAndOldMacLineEnds() {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("#EXTM3U\ra.mp3\rb.mp3".utf8)
        #expect(M3U.entries(of: bytes, musicDir: Self.music) == ["a.mp3", "b.mp3"])
    }

    @Test func latin1AndUTF16Text() {
        // "Café.mp3" in Latin-1 (Windows-1252): 0xE9 is é.
        let latin1: [UInt8] = Array("Ann/Caf".utf8) + [0xE9] + Array(".mp3\r\n".utf8)
        #expect(M3U.entries(of: latin1, musicDir: Self.music) == ["Ann/Café.mp3"])
        let utf16: [UInt8] = [0xFF, 0xFE] + "Ann/Café.mp3\r\n".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        #expect(M3U.entries(of: utf16, musicDir: Self.music) == ["Ann/Café.mp3"])
    }

    @Test func absolutePathsURLsAndBackslashes() {
        let text = """
            /home/pi/Music/Ann/01 Alpha.mp3
            /home/pi/Musicals/other.mp3
            /srv/elsewhere.mp3
            file:///home/pi/Music/Bob/Caf%C3%A9%20Noir.mp3
            Ann\\Windows.mp3
            http://radio.example/stream

            """
        #expect(
            Self.entries(text) == [
                "Ann/01 Alpha.mp3", "/home/pi/Musicals/other.mp3", "/srv/elsewhere.mp3", "Bob/Café Noir.mp3",
                "Ann/Windows.mp3", "http://radio.example/stream",
            ])
        // A music_dir given with a trailing slash means the same folder.
        #expect(M3U.entries(of: Array("/m/a.mp3\n".utf8), musicDir: "/m/") == ["a.mp3"])
    }

    @Test func writtenAsMPDWritesAndReadBack() {
        let entries = ["Ann/01 Alpha.mp3", "Bob/Café \"live\".mp3", " leading space.mp3"]
        let bytes = M3U.bytes(of: entries)
        #expect(
            String(decoding: bytes, as: UTF8.self) == "Ann/01 Alpha.mp3\nBob/Café \"live\".mp3\n leading space.mp3\n")
        #expect(M3U.entries(of: bytes, musicDir: Self.music) == entries)
        #expect(M3U.bytes(of: []) == [])
    }
}
