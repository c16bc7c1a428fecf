import FFmpeg
import JukeboxCore

/// AAC and ALAC in MP4 (.m4a, .m4b, .mp4) through FFmpeg, as S16 interleaved PCM: the
/// conversion `ffmpeg -f s16le` makes (AAC's float rounded; ALAC wider than 16 bits narrowed
/// with TPDF dither instead of keeping its top 16), gapless (encoder delay and padding removed) with the exact length, and sample-exact seeks,
/// so these files need no `SeekHint` to resume. FFmpeg is loaded by the first file opened.
public final class MP4FileDecoder: WideAudioDecoder {
    let decoder: MP4AudioDecoder
    public let format: AudioFormat
    /// ALAC wider than 16 bits, as FFmpeg gives it (full-scale S32), before it is narrowed.
    private var wide: [Int32] = []
    private var dither = TPDFDither()

    public init(path: String) throws {
        decoder = try MP4AudioDecoder(path: path)
        try checkChannels(decoder.channels, path)
        format = AudioFormat(rate: decoder.rate, channels: decoder.channels)
    }

    public var lengthFrames: Int64? { decoder.totalFrames }
    /// From the freeform atoms `----:com.apple.iTunes:replaygain_track_gain` (and `_peak`,
    /// album), which FFmpeg names by their `name`, as MPD's FFmpeg decoder reads them.
    public var replayGain: ReplayGainInfo? { ReplayGainInfo(tags: decoder.tags) }
    /// FFmpeg's channel layout; without one, WAVE's order.
    public var speakers: [SpeakerPosition] {
        .wave(mask: decoder.channelMask, channels: format.channels) ?? .standard(channels: format.channels)
    }

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws -> DecodeResult {
        let samples = buffer.count / format.channels * format.channels
        guard (decoder.bitsPerSample ?? 16) > 16 else {
            let frames = try decoder.read(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<samples]))
            return DecodeResult(frames: frames, isEnd: frames == 0, formatChanged: false)
        }
        if wide.count < samples { wide = [Int32](repeating: 0, count: samples) }
        let decoder = self.decoder
        let frames = try wide.withUnsafeMutableBufferPointer { wide throws(FFmpegError) in
            try decoder.read(into: UnsafeMutableBufferPointer(rebasing: wide[0..<samples]))
        }
        wide.withUnsafeBufferPointer {
            dither.narrow($0.baseAddress!, bits: 32, into: buffer.baseAddress!, count: frames * format.channels)
        }
        return DecodeResult(frames: frames, isEnd: frames == 0, formatChanged: false)
    }

    /// 32 for ALAC wider than 16 bits (FFmpeg gives it full-scale), else 16.
    public var bitsPerSample: Int { (decoder.bitsPerSample ?? 16) > 16 ? 32 : 16 }

    public func read(wide buffer: UnsafeMutableBufferPointer<Int32>) throws -> DecodeResult {
        let frames = try decoder.read(
            into: UnsafeMutableBufferPointer(rebasing: buffer[0..<buffer.count / format.channels * format.channels]))
        return DecodeResult(frames: frames, isEnd: frames == 0, formatChanged: false)
    }

    public func seek(toFrame frame: Int64) throws { try decoder.seek(toFrame: frame) }

    /// The log's line when MP4 files would load Debian's FFmpeg because the minimal build
    /// (Board/build-ffmpeg.sh) is not where it is looked for; nil when it is there.
    public static var minimalFFmpegMissing: String? {
        guard MP4AudioDecoder.minimalBuildDirectory == nil else { return nil }
        return "MP4 (AAC, ALAC): no minimal FFmpeg build for this machine in \(MP4AudioDecoder.minimalBuildSearched) "
            + "(Board/build-ffmpeg.sh); the first MP4 file loads Debian's FFmpeg, about 25 MB more resident"
    }

    /// Every tag of the file under FFmpeg's names, the container's then the audio stream's:
    /// what MPD 0.23's `readcomments` lists for an MP4 file through its FFmpeg plugin.
    public static func allTags(path: String) throws -> [(key: String, value: String)] {
        let decoder = try MP4AudioDecoder(path: path)
        return decoder.tags + decoder.streamTags
    }
}

extension AudioFileKind {
    /// An ISO base media file: its first box is `ftyp`.
    public static let mp4 = AudioFileKind(
        name: "MP4", extensions: ["m4a", "m4b", "mp4"], recognises: { $0.has("ftyp", at: 4) },
        open: { try MP4FileDecoder(path: $0) }, probe: MediaProbe.mp4)
}

extension MediaProbe {
    /// The MP4 headers through FFmpeg (a cover is never read) and the first frame: the exact
    /// length, what is wholly in the file when it was cut. Format as MPD reports it through
    /// FFmpeg: AAC decodes to float, ALAC to 16 or 32 bits.
    static func mp4(path: String) throws -> ProbedMedia {
        let decoder = try MP4AudioDecoder(path: path)
        guard decoder.totalFrames > 0, decoder.totalFrames < Int64.max / 1000 else {
            throw AudioFileError(path: path, reason: "MP4 file holds no audio of a known length")
        }
        let sampleFormat = decoder.bitsPerSample.map { $0 > 16 ? "32" : "16" } ?? "f"
        var media = ProbedMedia(
            MP4TagMapping.vorbisComments(decoder.tags), frames: decoder.totalFrames, rate: decoder.rate,
            sampleFormat: sampleFormat, channels: decoder.channels)
        media.chapters = decoder.chapters.map {
            // A start the file puts past any length (Nero's 64-bit chpl field) is held at
            // Int64.max, after the end, where the chapter list leaves it out.
            let (scaled, overflow) = $0.startFrame.multipliedReportingOverflow(by: 1000)
            return Chapter(title: $0.title, startMs: overflow ? .max : scaled / Int64(decoder.rate))
        }
        return media
    }
}
