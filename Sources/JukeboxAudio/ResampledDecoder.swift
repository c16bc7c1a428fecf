import JukeboxCore
import Soxr

/// A decoder's audio at the device's rate, through libsoxr (`Resampler`), for a device that
/// does not take the file's rate. Runs on jb-decode like the decoder it wraps. Frames and
/// seeks are counted at the output rate; the end of the file flushes libsoxr, so an item
/// comes out at its length times the ratio.
final class ResampledDecoder: AudioDecoder {
    let source: any AudioDecoder
    /// The resampler of the source's current part (a joined file may change rate or channels
    /// mid-way: each part gets its own, the one before played out first).
    private(set) var resampler: Resampler
    /// At the end of the file, leave what libsoxr still holds in it for the follow-up (which
    /// goes on with this resampler) instead of flushing it.
    var keepsTail = false
    private(set) var format: AudioFormat
    /// Source frames read but not yet taken by libsoxr: room for the widest source the
    /// pipeline takes (`DownmixedDecoder` is inside), whatever the current part's channels.
    private let input: UnsafeMutableBufferPointer<Int16>
    private let inputCapacity = 2048
    private var inputStart = 0
    private var inputFrames = 0
    private var sourceEnded = false
    /// The source changed format after the frames in `input`: once they and what libsoxr
    /// holds are out, a resampler for the new part takes over.
    private var sourceChanged = false

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
        input = .allocate(capacity: inputCapacity * AudioPipeline.maxChannels)
    }

    deinit { input.deallocate() }

    var lengthFrames: Int64? { source.lengthFrames.map { toOutput($0) } }
    var seekHint: SeekHint? { source.seekHint }
    var replayGain: ReplayGainInfo? { source.replayGain }

    private func toOutput(_ frames: Int64) -> Int64 { frames * Int64(format.rate) / Int64(resampler.inputRate) }
    private func toSource(_ frames: Int64) -> Int64 { frames * Int64(resampler.inputRate) / Int64(format.rate) }

    func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws -> DecodeResult {
        let channels = format.channels
        let capacityFrames = buffer.count / channels
        var produced = 0
        while produced < capacityFrames {
            if inputFrames == 0 && !sourceEnded && !sourceChanged {
                let room = inputCapacity * resampler.channels
                let result = try source.read(into: UnsafeMutableBufferPointer(rebasing: input[0..<room]))
                // Nothing yet (a file still downloading): back to jb-decode, which may have a command.
                if result == DecodeResult(frames: 0, isEnd: false, formatChanged: false) {
                    return DecodeResult(frames: produced, isEnd: false, formatChanged: false)
                }
                inputStart = 0
                inputFrames = result.frames
                sourceEnded = result.isEnd
                sourceChanged = result.formatChanged
                continue
            }
            let out = buffer.baseAddress! + produced * channels
            let room = capacityFrames - produced
            if inputFrames > 0 {
                let done = try resampler.process(
                    input.baseAddress! + inputStart * resampler.channels, inputFrames: inputFrames, into: out,
                    outputCapacity: room)
                inputStart += done.consumed
                inputFrames -= done.consumed
                produced += done.produced
            } else if sourceChanged {
                // The part before the change ends here: what libsoxr holds of it first.
                let done = try resampler.process(nil, inputFrames: 0, into: out, outputCapacity: room)
                produced += done.produced
                if done.produced > 0 { continue }
                sourceChanged = false
                let part = source.format
                resampler = try Resampler(inputRate: part.rate, outputRate: format.rate, channels: part.channels)
                if part.channels != channels {
                    format.channels = part.channels
                    return DecodeResult(frames: produced, isEnd: false, formatChanged: true)
                }
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
        sourceChanged = false
        return used
    }
}
