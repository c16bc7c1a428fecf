import Foundation
import JukeboxAudio
import JukeboxTestSupport
import LinuxSupport
import Testing

@Suite struct FormatAndBadMediaTests {
    /// Plays `items` back to back (each next one set when the previous starts or fails) into
    /// ALSA's file plugin writing a regular file, offered S16 only (a wide source is narrowed);
    /// returns the events, the status and the output.
    static func playChain(_ paths: [String], dir: TemporaryDirectory, device: String? = nil) -> (
        [PipelineEvent], PipelineStatus, [Int16]
    ) {
        let out = dir.file("chain.raw")
        let h = Harness(device: device ?? "file:'\(out)',raw", sink: RestrictedSink { $0.formats = [.s16] })
        let items = paths.enumerated().map { PlaybackItem(token: UInt64($0.offset + 1), path: $0.element) }
        h.pipeline.play(items[0], fromMs: 0, next: items.count > 1 ? items[1] : nil)
        h.pump(
            timeoutSeconds: 10,
            onEvent: { event in
                let token: UInt64
                switch event {
                case .started(let t): token = t
                default: return
                }
                if token >= 2, Int(token) < items.count { h.pipeline.setNext(items[Int(token)]) }
            },
            until: { $0.contains(.endOfStream) })
        let status = h.pipeline.status()
        h.pipeline.shutdown()
        return (h.events, status, samples(ofFile: out))
    }

    static func sox(_ args: [String]) throws -> [Int16] {
        samples(of: try run(["/usr/bin/sox"] + args).stdout)
    }

    @Test(arguments: ["wav/pcm16_stereo.wav", "wav/pcm16_48k_mono.wav", "wav/pcm24_stereo.wav"])
    func wavFixturesDecodeLikeSox(_ file: String) throws {
        let dir = try TemporaryDirectory()
        let (events, _, got) = Self.playChain([Fixtures.media(file)], dir: dir)
        #expect(events == [.started(1), .finished(1), .endOfStream])
        let reference = try Self.sox(["-D", Fixtures.media(file), "-b", "16", "-e", "signed", "-t", "raw", "-"])
        #expect(got.count == reference.count)
        #expect(maxDifference(got, reference) <= 1)
    }

    @Test func wav8And32BitOddChunksAndTruncatedData() throws {
        let dir = try TemporaryDirectory()
        let source = Fixtures.media("wav/pcm16_stereo.wav")
        _ = try run(["/usr/bin/sox", "-D", source, "-b", "8", "-e", "unsigned", dir.file("u8.wav")])
        _ = try run(["/usr/bin/sox", "-D", source, "-b", "32", "-e", "signed", dir.file("s32.wav")])
        let pcm16 = try #require(FileManager.default.contents(atPath: source))
        let reference = try Self.sox(["-D", source, "-t", "raw", "-"])
        // An odd-sized LIST chunk (with its pad byte) before the data, and the file cut short.
        var odd = Data(pcm16.prefix(36))
        odd.append(contentsOf: Array("LIST".utf8) + [3, 0, 0, 0, 0x61, 0x62, 0x63, 0])
        odd.append(pcm16.dropFirst(36).dropLast(1001))
        _ = FileManager.default.createFile(atPath: dir.file("odd.wav"), contents: odd)

        for (name, tolerance) in [("u8.wav", 256), ("s32.wav", 1)] {
            let (events, _, got) = Self.playChain([dir.file(name)], dir: dir)
            #expect(events == [.started(1), .finished(1), .endOfStream], "\(name)")
            #expect(got.count == reference.count, "\(name)")
            #expect(maxDifference(got, reference) <= tolerance, "\(name)")
        }
        let (events, _, got) = Self.playChain([dir.file("odd.wav")], dir: dir)
        #expect(events == [.started(1), .finished(1), .endOfStream])
        let whole = (reference.count * 2 - 1001) / 4 * 2
        #expect(got.count == whole)
        #expect(Array(got) == Array(reference.prefix(whole)))
    }

    @Test func formatChangesReopenOnlyWhenRateOrChannelsChange() throws {
        let dir = try TemporaryDirectory()
        let files = ["mp3/cbr128.mp3", "mp3/vbr_v2.mp3", "wav/pcm16_48k_mono.wav", "mp3/mpeg2_22k.mp3", "mp3/mono.mp3"]
        let sink = try PacedFifoSink(bytesPerSecond: 176_400, speed: 20)
        let (events, status, _) = Self.playChain(files.map(Fixtures.media), dir: dir, device: sink.alsaDevice)
        sink.stop()
        #expect(
            events == [
                .started(1), .finished(1), .started(2), .finished(2), .started(3), .finished(3), .started(4),
                .finished(4), .started(5), .finished(5), .endOfStream,
            ])
        // 44.1k/2 → 44.1k/2 (same PCM) → 48k/1 → 22.05k/2 → 44.1k/1: four opens.
        #expect(status.deviceOpens == 4)
        #expect(status.format == AudioFormat(rate: 44100, channels: 1))
    }

    @Test(arguments: [
        "bad/empty.mp3", "bad/text.mp3", "bad/random.mp3", "bad/truncated.mp3", "bad/notes.txt", "missing.mp3",
    ])
    func badMediaFailsOrPlaysThenTheNextItemPlays(_ file: String) throws {
        let dir = try TemporaryDirectory()
        let good = Fixtures.media("gapless/part1.mp3")
        let (events, _, got) = Self.playChain([Fixtures.media(file), good], dir: dir)
        let failed = events.contains { if case .failed(1, _) = $0 { return true } else { return false } }
        let played = events.starts(with: [.started(1), .finished(1)])
        #expect(failed || played, "\(events)")
        #expect(events.suffix(3) == [.started(2), .finished(2), .endOfStream], "\(events)")
        let expected = (try referenceDecode([Fixtures.media(file)])).count + (try referenceDecode([good])).count
        #expect(got.count == expected)
        if case .failed(_, let message) = events.first(where: { if case .failed = $0 { true } else { false } }) {
            #expect(message.contains(file.split(separator: "/").last!))
        }
    }

    @Test func deviceErrorIsReportedAndRetried() throws {
        let h = Harness(device: "hw:97,0")
        h.pipeline.play(PlaybackItem(token: 1, path: Fixtures.media("mp3/cbr128.mp3")), fromMs: 0)
        waitUntil(timeout: .seconds(2)) { h.pipeline.status().error != nil }
        let status = h.pipeline.status()
        #expect(status.error?.hasPrefix("hw:97,0: snd_pcm_open failed: ") == true, "\(status.error ?? "nil")")
        #expect(status.state == .playing)
        h.pipeline.stop()
        h.pipeline.shutdown()
    }
}
