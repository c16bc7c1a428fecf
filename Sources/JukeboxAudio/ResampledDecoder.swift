import JukeboxCore
import Soxr

/// A decoder's audio at the device's rate, through libsoxr (`Resampler`), for a device that
/// does not take the file's rate. Runs on jb-decode like the decoder it wraps. Frames and
/// seeks are counted at the output rate; the end of the file flushes libsoxr, so an item
/// comes out at its length times the ratio.
final class ResampledDecoder: AudioDecoder {
    let source: any AudioDecoder
    let resampler: Resampler
    /// At the end of the file, leave what libsoxr still holds in it for the follow-up (which
    /// goes on with this resampler) instead of flushing it.
    var keepsTail = false
    let format: AudioFormat
    /// Source frames read but not yet taken by libsoxr.
    private let input: UnsafeMutablePointer<Int16>
    private let inputCapacity = 2048
    private var inputStart = 0
    private var inputFrames = 0
    private var sourceEnded = false

    /// Goes on with `previous` (a resampler at the same rates, holding the end of the item
    /// before) when given one, else starts a new one. A previous one at other rates is
    /// dropped, and with it the last few milliseconds it held.
    init(_ source: any AudioDecoder, outputRate: Int, continuing previous: Resampler?) throws {
        self.source = source
        format = AudioFormat(rate: outputRate, channels: source.format.channels)
        if let previous, previous.inputRate == source.format.rate, previous.outputRate == outputRate,
            previous.channels == source.format.channels
        {
            resampler = previous
        } else {
            resampler = try Resampler(
                inputRate: source.format.rate, outputRate: outputRate, channels: source.format.channels)
        }
        input = .allocate(capacity: inputCapacity * source.format.channels)
    }

    deinit { input.deallocate() }

    var lengthFrames: Int64? { source.lengthFrames.map { toOutput($0) } }
    var seekHint: SeekHint? { source.seekHint }
    var replayGain: ReplayGainInfo? { source.replayGain }

    private func toOutput(_ frames: Int64) -> Int64 { frames * Int64(format.rate) / Int64(resampler.inputRate) }
    private func toSource(_ frames: Int64) -> Int64 { frames * Int64(resampler.inputRate) / Int64(format.rate) }

    func read(into buffer: UnsafeMutablePointer<Int16>, capacityFrames: Int) throws -> DecodeResult {
        let channels = format.channels
        var produced = 0
        while produced < capacityFrames {
            if inputFrames == 0 && !sourceEnded {
                let result = try source.read(into: input, capacityFrames: inputCapacity)
                // Nothing yet (a file still downloading): back to jb-decode, which may have a command.
                if result == DecodeResult(frames: 0, isEnd: false, formatChanged: false) {
                    return DecodeResult(frames: produced, isEnd: false, formatChanged: false)
                }
                inputStart = 0
                inputFrames = result.frames
                sourceEnded = result.isEnd
                continue
            }
            let out = buffer + produced * channels
            let room = capacityFrames - produced
            if inputFrames > 0 {
                let done = try resampler.process(
                    input + inputStart * channels, inputFrames: inputFrames, into: out, outputCapacity: room)
                inputStart += done.consumed
                inputFrames -= done.consumed
                produced += done.produced
            } else {
                // The file ended: what libsoxr still holds is the end of this item, unless the
                // follow-up goes on with it.
                if keepsTail { return DecodeResult(frames: produced, isEnd: true, formatChanged: false) }
                let done = try resampler.process(nil, inputFrames: 0, into: out, outputCapacity: room)
                produced += done.produced
                if done.produced == 0 { return DecodeResult(frames: produced, isEnd: true, formatChanged: false) }
            }
        }
        return DecodeResult(frames: produced, isEnd: false, formatChanged: false)
    }

    func seek(toFrame frame: Int64) throws { _ = try seek(toFrame: frame, hint: nil) }

    func seek(toFrame frame: Int64, hint: SeekHint?) throws -> Bool {
        let used = try source.seek(toFrame: toSource(frame), hint: hint)
        try resampler.clear()
        inputStart = 0
        inputFrames = 0
        sourceEnded = false
        return used
    }
}
