import Glibc
import JukeboxCore
import LinuxSupport
import MPG123

/// What the library scanner stores about a file.
public struct ProbedMedia: Sendable, Equatable {
    public var title: String?
    public var artist: String?
    public var album: String?
    public var trackNumber: Int?
    public var durationMs: Int64?
    public var sampleRate: Int
    /// Bits per sample of the file's audio (what MPD reports; MPEG decodes to 16).
    public var bits = 16
    public var channels: Int
    /// The other tags (AlbumArtist, Genre, Date, ...), from the ID3 frames.
    public var tags: [TrackTag] = []

    /// `44100:16:2`, as MPD's `Format:` line.
    public var format: String { "\(sampleRate):\(bits):\(channels)" }
}

/// Reads format, duration and tags without decoding the whole file: libmpg123 reads the tags
/// and the first frame (the Xing/LAME header gives the exact length); WAV reads the RIFF header.
/// Runs on the caller's thread (jb-scan); never touches the pipeline.
public enum MediaProbe {
    /// Throws `AudioFileError` (or the library's error) for files that are not playable audio:
    /// empty, text, random bytes, truncated (a length header that promises more than the file holds).
    public static func probe(path: String) throws -> ProbedMedia {
        if try WAVDecoder.looksLikeWAV(path: path) {
            let wav = try WAVDecoder(path: path)
            guard let frames = wav.lengthFrames, frames > 0 else {
                throw AudioFileError(path: path, reason: "WAV file holds no audio")
            }
            return ProbedMedia(
                durationMs: frames * 1000 / Int64(wav.format.rate), sampleRate: wav.format.rate,
                bits: wav.bitsPerSample, channels: wav.format.channels)
        }
        let decoder: MPG123Decoder
        // 16 KiB reads: the probe reads the tags and first frames, then a few frames at the end.
        do { decoder = try MPG123Decoder(path: path, readSize: 16384) } catch {
            throw AudioFileError(path: path, reason: "not an MPEG audio file (\(error.message))")
        }
        let format = decoder.format
        let length = decoder.lengthFrames
        if let length {
            // A header-given length the file cannot back up means the file was cut short. An
            // approximate seek near the end reads a few blocks, not the file (an exact one reads
            // every frame header: a first scan would read the whole library from the card). Where
            // it finds no audio (a cut file, or the Xing table rounding past the end of a short
            // one), an exact seek decides.
            let target = max(0, length - Int64(1152 * 2))
            try? decoder.allowApproximateSeeks(true)
            if !hasAudio(decoder, at: target, channels: format.channels) {
                try? decoder.allowApproximateSeeks(false)
                _ = try? decoder.seek(toFrame: 0)  // clears the read error the failed attempt left
                if !hasAudio(decoder, at: target, channels: format.channels) {
                    throw AudioFileError(path: path, reason: "truncated: the header promises \(length) frames")
                }
            }
        }
        let tags = decoder.tags()
        return ProbedMedia(
            title: tags.title, artist: tags.artist, album: tags.album, trackNumber: tags.trackNumber,
            durationMs: length.map { $0 * 1000 / Int64(format.rate) }, sampleRate: format.rate,
            channels: format.channels,
            tags: ID3TagMapping.tags(decoder.textFrames().map { ($0.id, $0.description, $0.text) }))
    }

    /// Whether `decoder` yields any audio after seeking to `frame`.
    private static func hasAudio(_ decoder: MPG123Decoder, at frame: Int64, channels: Int) -> Bool {
        guard (try? decoder.seek(toFrame: frame)) != nil else { return false }
        let capacity = 1152
        let buffer = UnsafeMutablePointer<Int16>.allocate(capacity: capacity * channels)
        defer { buffer.deallocate() }
        for _ in 0..<4 {
            guard let r = try? decoder.read(into: buffer, capacityFrames: capacity) else { return false }
            if case .frames(let n) = r, n > 0 { return true }
            if case .done(let n) = r { return n > 0 }
        }
        return false
    }
}
