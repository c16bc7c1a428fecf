import JukeboxCore

/// A file's decoder as the pipeline takes it: at most two channels. A source of more (5.1
/// FLAC or AAC, a 6-channel WAV, 3-channel Vorbis) is mixed down to stereo (`StereoDownmix`,
/// by the positions its decoder gives); mono and stereo pass through untouched. Wraps every
/// file decoder (`openDecoder`), so each format's decoder delivers its channels as they are,
/// and a chained Ogg stream whose next link has more channels is mixed from there on.
/// A source wider than 16 bits that passes through is read wide through it too.
final class DownmixedDecoder: WideAudioDecoder {
    let source: any AudioDecoder
    private let wideSource: (any WideAudioDecoder)?
    /// The mix of the source's current format; nil while it has at most two channels.
    private var downmix: StereoDownmix?
    /// The source's frames before they are mixed.
    private var unmixed: [Int16] = []

    init(_ source: any AudioDecoder) {
        self.source = source
        wideSource = source as? any WideAudioDecoder
        downmix = Self.downmix(for: source)
    }

    private static func downmix(for source: any AudioDecoder) -> StereoDownmix? {
        source.format.channels > AudioPipeline.maxChannels ? StereoDownmix(speakers: source.speakers) : nil
    }

    var format: AudioFormat {
        AudioFormat(rate: source.format.rate, channels: downmix == nil ? source.format.channels : 2)
    }
    var lengthFrames: Int64? { source.lengthFrames }
    var seekHint: SeekHint? { source.seekHint }
    var replayGain: ReplayGainInfo? { source.replayGain }
    var speakers: [SpeakerPosition] { downmix == nil ? source.speakers : .standard(channels: 2) }

    func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws -> DecodeResult {
        let result: DecodeResult
        if let downmix {
            let samples = buffer.count / 2 * source.format.channels
            if unmixed.count < samples { unmixed = [Int16](repeating: 0, count: samples) }
            let source = self.source
            result = try unmixed.withUnsafeMutableBufferPointer {
                try source.read(into: UnsafeMutableBufferPointer(rebasing: $0[0..<samples]))
            }
            unmixed.withUnsafeBufferPointer {
                downmix.mix($0.baseAddress!, frames: result.frames, into: buffer.baseAddress!)
            }
        } else {
            result = try source.read(into: buffer)
        }
        if result.formatChanged { downmix = Self.downmix(for: source) }
        return result
    }

    /// The source's when it passes through; 16 when it is mixed down (in S16).
    var bitsPerSample: Int { downmix == nil ? wideSource?.bitsPerSample ?? 16 : 16 }

    func read(wide buffer: UnsafeMutableBufferPointer<Int32>) throws -> DecodeResult {
        guard downmix == nil, let wideSource else { preconditionFailure("read(wide:) of a mixed-down or S16 source") }
        return try wideSource.read(wide: buffer)
    }

    func seek(toFrame frame: Int64) throws { try source.seek(toFrame: frame) }

    func seek(toFrame frame: Int64, hint: SeekHint?) throws -> Bool { try source.seek(toFrame: frame, hint: hint) }
}
