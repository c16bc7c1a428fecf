import Testing

@testable import JukeboxCore

@Suite struct StationPlaylistTests {
    @Test func plsAsRadioDirectoriesServeIt() throws {
        let text = """
            [playlist]\r
            NumberOfEntries=3\r
            File1=http://ice1.example.org:8000/jazz.mp3\r
            Title1=Jazz (MP3)\r
            Length1=-1\r
            file2 = https://ice2.example.org/jazz.aac\r
            File3=http://ice1.example.org:8000/jazz.mp3\r
            Version=2\r

            """
        #expect(
            try StationPlaylist.streams(in: text) == [
                "http://ice1.example.org:8000/jazz.mp3", "https://ice2.example.org/jazz.aac",
            ])
    }

    @Test func m3uAndM3u8OneURLALine() throws {
        let text =
            "\u{FEFF}#EXTM3U\n#EXTINF:-1,Station\nhttp://radio.example.org/live\n\n  https://b.example.org/x.ogg  \nlocal.mp3\n"
        #expect(
            try StationPlaylist.streams(in: text) == ["http://radio.example.org/live", "https://b.example.org/x.ogg"])
    }

    @Test func hlsAndEmptyPlaylistsAreRefusedByName() {
        #expect(throws: StationPlaylist.Problem.hls) {
            try StationPlaylist.streams(in: "#EXTM3U\n#EXT-X-TARGETDURATION:10\nseg1.ts\n")
        }
        #expect(throws: StationPlaylist.Problem.noStreams) { try StationPlaylist.streams(in: "[playlist]\nTitle1=x\n") }
        #expect(throws: StationPlaylist.Problem.noStreams) { try StationPlaylist.streams(in: "\u{0}\u{1}garbage") }
    }

    @Test func playlistURLsAndStreamURLs() {
        #expect(StationPlaylist.isPlaylist(url: "http://a.example.org/listen.PLS"))
        #expect(StationPlaylist.isPlaylist(url: "http://a.example.org/x.m3u8?token=1"))
        #expect(!StationPlaylist.isPlaylist(url: "http://a.example.org/stream.mp3"))
        #expect(StationPlaylist.isStreamURL("HTTPS://a"))
        #expect(!StationPlaylist.isStreamURL("file:///etc/passwd"))
    }
}

@Suite struct ICYStreamTests {
    /// `audio` bytes with a metadata block after every `interval` of them.
    static func body(audio: [UInt8], interval: Int, blocks: [String]) -> [UInt8] {
        var out: [UInt8] = []
        var blockIndex = 0
        for start in stride(from: 0, to: audio.count, by: interval) {
            out += audio[start..<min(start + interval, audio.count)]
            guard start + interval <= audio.count else { break }
            let text = blockIndex < blocks.count ? Array(blocks[blockIndex].utf8) : []
            blockIndex += 1
            let length = (text.count + 15) / 16
            out.append(UInt8(length))
            out += text + [UInt8](repeating: 0, count: length * 16 - text.count)
        }
        return out
    }

    @Test(arguments: [1, 7, 16, 100, 5000])
    func audioAndMetadataSeparateInChunksOfAnySize(chunk: Int) {
        let audio = (0..<3000).map { UInt8($0 % 256) }
        let body = Self.body(audio: audio, interval: 1000, blocks: ["StreamTitle='One';", "", "StreamTitle='Two';"])
        var demuxer = ICYDemuxer(interval: 1000)
        var out: [UInt8] = []
        var titles: [String?] = []
        for start in stride(from: 0, to: body.count, by: chunk) {
            body[start..<min(start + chunk, body.count)].withUnsafeBytes { bytes in
                titles += demuxer.feed(bytes) { out += $0 }.map(\.streamTitle)
            }
        }
        #expect(out == audio)
        #expect(titles == ["One", "Two"])
    }

    @Test func withoutMetaintEverythingIsAudio() {
        var demuxer = ICYDemuxer(interval: nil)
        var out: [UInt8] = []
        let blocks = [UInt8](repeating: 9, count: 50).withUnsafeBytes { demuxer.feed($0) { out += $0 } }
        #expect(out.count == 50 && blocks.isEmpty)
    }

    @Test func titlesWithQuotesSemicolonsAndLatin1() {
        #expect(
            ICYMetadata(block: Array("StreamTitle='Guns N' Roses - Sweet Child o' Mine';StreamUrl='';".utf8))
                .streamTitle == "Guns N' Roses - Sweet Child o' Mine")
        #expect(ICYMetadata(block: Array("StreamTitle='A; B';".utf8) + [0, 0]).streamTitle == "A; B")
        #expect(
            ICYMetadata(block: [UInt8]("StreamTitle='Bj".utf8) + [0xF6] + [UInt8]("rk';".utf8)).streamTitle == "Björk")
        #expect(ICYMetadata(block: Array("StreamTitle='Björk';".utf8)).streamTitle == "Björk")
        #expect(ICYMetadata(block: Array("garbage".utf8)).streamTitle == nil)
    }
}

@Suite struct ReconnectBackoffTests {
    @Test func doublesToEightSecondsAndStartsAgainAfterASteadyConnection() {
        var backoff = ReconnectBackoff()
        var now = Instant.zero
        var delays: [Int64] = []
        for _ in 0..<7 {
            let at = backoff.dropped(connectedAt: nil, now: now)
            delays.append(at.milliseconds(since: now))
            now = at
        }
        #expect(delays == [500, 1000, 2000, 4000, 8000, 8000, 8000])
        let connected = now
        now = now.adding(milliseconds: 30_000)
        #expect(backoff.dropped(connectedAt: connected, now: now).milliseconds(since: now) == 500)
        #expect(backoff.attempts == 8)
    }
}

@Suite struct OggStreamTitleTests {
    @Test func anOggLinksCommentsMakeItsTitle() {
        #expect(OggStreamTitle.of(comments: [("artist", "Ann"), ("TITLE", "Alpha")]) == "Ann - Alpha")
        #expect(OggStreamTitle.of(comments: [("Title", "Alpha"), ("ARTIST", "")]) == "Alpha")
        #expect(OggStreamTitle.of(comments: [("ARTIST", "Ann")]) == nil)
        #expect(OggStreamTitle.of(comments: []) == nil)
    }
}
