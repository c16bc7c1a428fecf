import JukeboxCore
import Testing

@testable import JukeboxAudio

/// The ring between jb-output and the Snapcast writer: in order, stereo, never waiting.
@Suite struct PlayedAudioRingTests {
    func taken(_ ring: PlayedAudioRing) -> (samples: [Int16], rates: [Int]) {
        var samples: [Int16] = []
        var rates: [Int] = []
        ring.consume { pointer, frames, rate in
            samples += UnsafeBufferPointer(start: pointer, count: frames * 2)
            rates.append(rate)
        }
        return (samples, rates)
    }

    @Test func handsOverInOrderAsStereo() {
        let ring = PlayedAudioRing(slotCount: 4)
        var dither = TPDFDither()
        let stereo: [Int16] = (0..<3000).map { Int16($0 % 1000) }
        stereo.withUnsafeBufferPointer {
            ring.publish($0.baseAddress!, count: 1500, channels: 2, rate: 44100, gain: 1, dither: &dither)
        }
        let mono: [Int16] = [100, -200, 300]
        mono.withUnsafeBufferPointer {
            ring.publish($0.baseAddress!, count: 3, channels: 1, rate: 48000, gain: 0.5, dither: &dither)
        }
        let (samples, rates) = taken(ring)
        #expect(samples == stereo + [50, 50, -100, -100, 150, 150])
        #expect(rates == [44100, 44100, 48000])
        #expect(ring.droppedFrames == 0)
    }

    /// A full ring (the writer stalled) drops what does not fit and counts it; the producer
    /// returns at once, and what was dropped never comes.
    @Test func aFullRingDropsInsteadOfWaiting() {
        let ring = PlayedAudioRing(slotCount: 2)
        var dither = TPDFDither()
        let block = [Int16](repeating: 7, count: PlayedAudioRing.slotFrames * 2)
        for _ in 0..<3 {
            block.withUnsafeBufferPointer {
                ring.publish(
                    $0.baseAddress!, count: PlayedAudioRing.slotFrames, channels: 2, rate: 48000, gain: 1,
                    dither: &dither)
            }
        }
        #expect(ring.droppedFrames == PlayedAudioRing.slotFrames)
        #expect(taken(ring).samples.count == 2 * PlayedAudioRing.slotFrames * 2)
        #expect(taken(ring).samples.isEmpty)
    }

    /// 32-bit samples are narrowed with dither only where they have bits below 16: a 16-bit
    /// source widened on a wide device reaches the Snapcast fifo exactly (dithered as well,
    /// 498 of 2,000 samples came out one off), a 24-bit one within the dither's 1.5 LSB.
    @Test func wideSamplesAreDitheredOnlyWhereTheyHaveBitsBelow16() {
        let ring = PlayedAudioRing(slotCount: 4)
        let sixteen: [Int16] = (0..<2000).map { Int16(truncatingIfNeeded: $0 * 37 - 30_000) }
        let widened = sixteen.map { Int32($0) << 16 }
        var dither = TPDFDither()
        widened.withUnsafeBufferPointer {
            ring.publish(wide: $0.baseAddress!, count: 1000, channels: 2, rate: 44100, gain: 1, dither: &dither)
        }
        let exact = taken(ring).samples
        #expect(exact == sixteen, "\(zip(exact, sixteen).filter { $0 != $1 }.count) of 2000 samples differ")
        let wide = widened.map { $0 | 0x5A00 }
        wide.withUnsafeBufferPointer {
            ring.publish(wide: $0.baseAddress!, count: 1000, channels: 2, rate: 44100, gain: 1, dither: &dither)
        }
        let narrowed = taken(ring).samples
        #expect(zip(narrowed, wide).allSatisfy { abs(Double($0) - Double($1) / 65536) < 1.5 })
        #expect(narrowed != sixteen)
    }

    /// ReplayGain on 16-bit samples is rounded with dither, as on the device: one LSB at 0.3
    /// averages 0.3 (rounded, every sample came out 0); an exact product (half of an even
    /// sample, silence) gets no noise.
    @Test func gainedSamplesAreDithered() {
        let ring = PlayedAudioRing(slotCount: 16)
        var dither = TPDFDither()
        let ones = [Int16](repeating: 1, count: 2 * 8 * PlayedAudioRing.slotFrames)
        ones.withUnsafeBufferPointer {
            ring.publish($0.baseAddress!, count: ones.count / 2, channels: 2, rate: 44100, gain: 0.3, dither: &dither)
        }
        let quiet = taken(ring).samples
        #expect(quiet.count == ones.count && Set(quiet).isSubset(of: [-1, 0, 1]))
        #expect(abs(Double(quiet.reduce(0) { $0 + Int($1) }) / Double(quiet.count) - 0.3) < 0.02)
        let even: [Int16] = [0, 0, 2, -2, 30_000, -30_000]
        even.withUnsafeBufferPointer {
            ring.publish($0.baseAddress!, count: 3, channels: 2, rate: 44100, gain: 0.5, dither: &dither)
        }
        #expect(taken(ring).samples == [0, 0, 1, -1, 15_000, -15_000])
    }

    @Test func aDisabledRingTakesNothing() {
        let ring = PlayedAudioRing(slotCount: 2, enabled: false)
        var dither = TPDFDither()
        let block: [Int16] = [1, 2]
        block.withUnsafeBufferPointer {
            ring.publish($0.baseAddress!, count: 1, channels: 2, rate: 48000, gain: 1, dither: &dither)
        }
        #expect(taken(ring).samples.isEmpty && ring.droppedFrames == 0)
    }
}
