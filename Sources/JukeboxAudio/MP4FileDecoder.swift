import FFmpeg

/// AAC and ALAC in MP4 (.m4a, .m4b, .mp4) through FFmpeg, as S16 interleaved PCM: the
/// conversion `ffmpeg -f s16le` makes (AAC's float rounded, ALAC's 24 bits keep the top 16),
/// gapless (encoder delay and padding removed) with the exact length, and sample-exact seeks,
/// so these files need no `SeekHint` to resume. FFmpeg is loaded by the first file opened.
public final class MP4FileDecoder: AudioDecoder {
    let decoder: MP4AudioDecoder
    public let format: AudioFormat

    public init(path: String) throws {
        decoder = try MP4AudioDecoder(path: path)
        guard (1...AudioPipeline.maxChannels).contains(decoder.channels) else {
            throw AudioFileError(path: path, reason: "\(decoder.channels) channels: only mono and stereo are played")
        }
        format = AudioFormat(rate: decoder.rate, channels: decoder.channels)
    }

    public var lengthFrames: Int64? { decoder.totalFrames }

    public func read(into buffer: UnsafeMutablePointer<Int16>, capacityFrames: Int) throws -> DecodeResult {
        let frames = try decoder.read(
            into: UnsafeMutableBufferPointer(start: buffer, count: capacityFrames * format.channels))
        return DecodeResult(frames: frames, isEnd: frames == 0, formatChanged: false)
    }

    public func seek(toFrame frame: Int64) throws { try decoder.seek(toFrame: frame) }
}
