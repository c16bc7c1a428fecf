import ALSA
import Glibc
import JukeboxTestSupport
import MPG123
import Testing

@Suite struct ALSAWrapperTests {
    @Test func errorTextNamesDeviceCallAndStrerror() {
        let e = ALSAError(code: -ENOENT, call: "snd_pcm_open", device: "hw:1,0")
        #expect(e.code == ENOENT)
        #expect(e.description == "hw:1,0: snd_pcm_open failed: No such file or directory")
    }

    @Test func nullPCMOpensWritesAndPrepares() throws {
        let pcm = try PCM(
            PCMRequest(device: "null", rate: 44100, channels: 2, periodMicroseconds: 10_000, bufferMicroseconds: 40_000)
        )
        #expect(pcm.type == .null)
        #expect(pcm.granted.rate == 44100)
        #expect(pcm.granted.periodFrames > 0 && pcm.granted.bufferFrames >= pcm.granted.periodFrames)
        let frames = [Int16](repeating: 0, count: 882)
        #expect(try frames.withUnsafeBufferPointer { try pcm.write($0.baseAddress!, frames: 441) } == 441)
        try pcm.drop()
        try pcm.prepare()
        #expect(pcm.state == .prepared)
    }

    @Test func filePluginHoldsFramesThatCanBeRewound() throws {
        let dir = try TemporaryDirectory()
        let pcm = try PCM(
            PCMRequest(
                device: "file:'\(dir.file("x.raw"))',raw", rate: 48000, channels: 1, periodMicroseconds: 10_000,
                bufferMicroseconds: 40_000))
        #expect(pcm.type == .file)
        let frames = [Int16](repeating: 7, count: 480)
        for _ in 0..<2 { _ = try frames.withUnsafeBufferPointer { try pcm.write($0.baseAddress!, frames: 480) } }
        #expect(try pcm.delay() == 0, "the file plugin's slave is null: nothing is ever pending")
        #expect(pcm.rewindable() == 960, "but the plugin itself still holds the frames")
        #expect(try pcm.rewind(960) == 960)
    }

    @Test func unknownMixerCardThrows() {
        #expect(throws: ALSAError.self) { try Mixer(card: "hw:97", control: "PCM") }
    }
}

@Suite struct MPG123WrapperTests {
    @Test func theLastDataArrivesWithDoneAndIsReturned() throws {
        let decoder = try MPG123Decoder(path: Fixtures.media("gapless/part1.mp3"))
        #expect(decoder.format == MPG123Format(rate: 44100, channels: 2))
        #expect(decoder.lengthFrames == 88200)
        let buffer = UnsafeMutablePointer<Int16>.allocate(capacity: 4096)
        defer { buffer.deallocate() }
        var total = 0
        var doneFrames = -1
        while doneFrames < 0 {
            switch try decoder.read(into: UnsafeMutableBufferPointer(start: buffer, count: 4096)) {
            case .frames(let n), .newFormat(let n): total += n
            case .done(let n):
                total += n
                doneFrames = n
            }
        }
        #expect(total == 88200)
        print("MPG123_DONE carried \(doneFrames) frames")
    }

    @Test func seekIsSampleAccurate() throws {
        let a = try MPG123Decoder(path: Fixtures.media("mp3/vbr_v2.mp3"))
        let b = try MPG123Decoder(path: Fixtures.media("mp3/vbr_v2.mp3"))
        let n = 50_000
        let whole = UnsafeMutablePointer<Int16>.allocate(capacity: (n + 4096) * 2)
        let part = UnsafeMutablePointer<Int16>.allocate(capacity: 4096)
        defer {
            whole.deallocate()
            part.deallocate()
        }
        var got = 0
        while got < n + 1000 {
            guard
                case .frames(let k) = try a.read(into: UnsafeMutableBufferPointer(start: whole + got * 2, count: 4096))
            else { break }
            got += k
        }
        #expect(try b.seek(toFrame: Int64(n)) == Int64(n))
        _ = try b.read(into: UnsafeMutableBufferPointer(start: part, count: 2000))
        #expect(
            Array(UnsafeBufferPointer(start: part, count: 2000))
                == Array(UnsafeBufferPointer(start: whole + n * 2, count: 2000)))
    }

    @Test func errorsCarryPathAndLibraryText() {
        #expect {
            _ = try MPG123Decoder(path: "/nonexistent/x.mp3")
        } throws: { error in
            // The buffered reader opens the file itself: the system's text for the open.
            let e = error as? MPG123Error
            return e?.path == "/nonexistent/x.mp3"
                && e?.description == "/nonexistent/x.mp3: open failed: \(String(cString: strerror(ENOENT)))"
        }
        // A file that opens but holds no MPEG audio: libmpg123's own call and text.
        let text = Fixtures.media("bad/notes.txt")
        #expect {
            _ = try MPG123Decoder(path: text)
        } throws: { error in
            let e = error as? MPG123Error
            return e?.path == text && e?.call.hasPrefix("mpg123_") == true && e?.message.isEmpty == false
        }
    }
}
