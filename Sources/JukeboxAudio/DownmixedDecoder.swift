import JukeboxCore

/// A file's decoder as the pipeline takes it: at most two channels. A source of more (5.1
/// FLAC or AAC, a 6-channel WAV, 3-channel Vorbis) is mixed down to stereo (`StereoDownmix`,
/// by the positions its decoder gives); mono and stereo pass through untouched. Wraps every
/// file decoder (`openDecoder`), so each format's decoder delivers its channels as they are,
/// and a chained Ogg stream whose next link has more channels is mixed from there on.
final class DownmixedDecoder: AudioDecoder {
    let source: any AudioDecoder
    /// The mix of the source's current format; nil while it has at most two channels.
    private var downmix: StereoDownmix?
    /// The source's frames before they are mixed.
    private var wide: [Int16] = []

    init(_ source: any AudioDecoder) {
        self.source = source
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

    func read(into buffer: UnsafeMutablePointer<Int16>, capacityFrames: Int) throws -> DecodeResult {
        let result: DecodeResult
        if let downmix {
            let samples = capacityFrames * source.format.channels
            if wide.count < samples { wide = [Int16](repeating: 0, count: samples) }
            let source = self.source
            result = try wide.withUnsafeMutableBufferPointer {
                try source.read(into: $0.baseAddress!, capacityFrames: capacityFrames)
            }
            wide.withUnsafeBufferPointer { downmix.mix($0.baseAddress!, frames: result.frames, into: buffer) }
        } else {
            result = try source.read(into: buffer, capacityFrames: capacityFrames)
        }
        if result.formatChanged { downmix = Self.downmix(for: source) }
        return result
    }

    func seek(toFrame frame: Int64) throws { try source.seek(toFrame: frame) }

    func seek(toFrame frame: Int64, hint: SeekHint?) throws -> Bool { try source.seek(toFrame: frame, hint: hint) }
}
