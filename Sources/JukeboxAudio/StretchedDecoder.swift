import JukeboxCore
import Sonic

/// A decoder's audio played `speed` times as fast with its pitch kept, through libsonic
/// (`TimeStretcher`). Runs on jb-decode like the decoder it wraps; the pipeline wraps a
/// decoder only at a speed other than 1, so at 1.0 the samples are the decoder's own. Seeks
/// and the length are in the source's frames (track time); the frames read are stretched.
final class StretchedDecoder: AudioDecoder {
    let source: any AudioDecoder
    let speed: Double
    private var stretcher: TimeStretcher
    /// Source frames read, handed to libsonic a block at a time.
    private let input: UnsafeMutablePointer<Int16>
    private let inputCapacity = 1024
    private var flushed = false
    /// The source changed format (a chained Ogg stream): what libsonic holds is played out
    /// first, then a stretcher for the new format takes over.
    private var formatChangePending = false

    init(_ source: any AudioDecoder, speed: Double) throws {
        self.source = source
        self.speed = speed
        stretcher = try TimeStretcher(rate: source.format.rate, channels: source.format.channels, speed: speed)
        input = .allocate(capacity: inputCapacity * AudioPipeline.maxChannels)
    }

    deinit { input.deallocate() }

    var format: AudioFormat { AudioFormat(rate: stretcher.rate, channels: stretcher.channels) }
    var lengthFrames: Int64? { source.lengthFrames }
    var seekHint: SeekHint? { source.seekHint }
    var replayGain: ReplayGainInfo? { source.replayGain }

    func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws -> DecodeResult {
        let channels = stretcher.channels
        let capacityFrames = buffer.count / channels
        var produced = 0
        while produced < capacityFrames {
            produced += stretcher.read(
                into: buffer.baseAddress! + produced * channels, capacity: capacityFrames - produced)
            if produced == capacityFrames { break }
            if flushed {
                if formatChangePending {
                    formatChangePending = false
                    flushed = false
                    stretcher = try TimeStretcher(
                        rate: source.format.rate, channels: source.format.channels, speed: speed)
                    return DecodeResult(frames: produced, isEnd: false, formatChanged: true)
                }
                return DecodeResult(frames: produced, isEnd: true, formatChanged: false)
            }
            let result = try source.read(
                into: UnsafeMutableBufferPointer(start: input, count: inputCapacity * channels))
            // Nothing yet (a file still downloading): back to jb-decode, which may have a command.
            if result == DecodeResult(frames: 0, isEnd: false, formatChanged: false) {
                return DecodeResult(frames: produced, isEnd: false, formatChanged: false)
            }
            if result.frames > 0 { try stretcher.write(input, frames: result.frames) }
            if result.isEnd || result.formatChanged {
                try stretcher.flush()
                flushed = true
                formatChangePending = result.formatChanged
            }
        }
        return DecodeResult(frames: produced, isEnd: false, formatChanged: false)
    }

    func seek(toFrame frame: Int64) throws { _ = try seek(toFrame: frame, hint: nil) }

    /// libsonic cannot forget what it holds: a new stream starts at the target.
    func seek(toFrame frame: Int64, hint: SeekHint?) throws -> Bool {
        let used = try source.seek(toFrame: frame, hint: hint)
        stretcher = try TimeStretcher(rate: source.format.rate, channels: source.format.channels, speed: speed)
        flushed = false
        formatChangePending = false
        return used
    }
}
