import Foundation
import JukeboxAudio
import JukeboxTestSupport
import Testing

/// Gapless playback through a paced virtual DAC (8x real time, to keep the wall time short).
@Suite struct GaplessTests {
    @Test func threePartsJoinSampleExactly() throws {
        let parts = (1...3).map { Fixtures.media("gapless/part\($0).mp3") }
        let reference = try referenceDecode(parts)
        #expect(reference.count == 264_600 * 2)
        let played = try playAsQueue(parts, rate: 44100, expectedFrames: reference.count / 2)
        #expect(played.ended)
        #expect(played.events == QueuePlayback.expectedEvents(parts: 3))
        let got = played.samples
        #expect(got.count == reference.count)
        #expect(
            got == reference,
            "first difference at sample \((0..<min(got.count, reference.count)).first { got[$0] != reference[$0] } ?? -1)"
        )
        #expect(played.segmentOffsets == [0], "the PCM must stay open across gapless joins")
    }

    @Test func aFollowUpAlreadyDecodedCanBeReplacedOrWithdrawn() throws {
        let parts = (1...3).map { Fixtures.media("gapless/part\($0).mp3") }
        for replacement in [PlaybackItem(token: 3, path: parts[2]), nil] {
            let reference = try referenceDecode(replacement == nil ? [parts[0]] : [parts[0], parts[2]])
            let sink = try PacedFifoSink(bytesPerSecond: 176_400, speed: 8)
            let h = Harness(device: sink.alsaDevice, periodMs: 10, bufferMs: 40)
            h.pipeline.play(
                PlaybackItem(token: 1, path: parts[0]), fromMs: 0, next: PlaybackItem(token: 2, path: parts[1]))
            // part1 fits in the ring: jb-decode has moved on to part2 long before it is audible.
            #expect(sink.waitForBytes(176_400 / 10, timeoutSeconds: 2))
            h.pipeline.setNext(replacement)
            #expect(h.waitForEnd(timeoutSeconds: 5))
            let expectedEvents: [PipelineEvent] =
                replacement == nil
                ? [.started(1), .finished(1), .endOfStream]
                : [.started(1), .finished(1), .started(3), .finished(3), .endOfStream]
            #expect(h.events == expectedEvents)
            sink.waitForBytes(reference.count * 2, timeoutSeconds: 3)
            h.pipeline.shutdown()
            sink.stop()
            #expect(sink.samples == reference)
        }
    }
}
