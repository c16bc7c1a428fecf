import FLAC
import Glibc
import JukeboxCore
import LinuxSupport
import MPG123
import Opus

/// What the library scanner stores about a file.
public struct ProbedMedia: Sendable, Equatable {
    public var title: String?
    public var artist: String?
    public var album: String?
    public var trackNumber: Int?
    public var durationMs: Int64?
    public var sampleRate: Int
    /// The file's sample format as MPD reports it: bits per sample ("16", "24"; MPEG decodes
    /// to 16), or "f" for what MPD decodes to float (Vorbis).
    public var sampleFormat = "16"
    public var channels: Int
    /// The other tags (AlbumArtist, Genre, Date, ...), from the ID3 frames or Vorbis comments.
    public var tags: [TrackTag] = []
    /// Lyrics kept as tag text (a Vorbis comment's LYRICS), LRC or plain; not stored by the
    /// scanner, read again when the track plays. MP3's ID3 lyrics are read by the daemon.
    public var lyrics: String?
    /// A CUE sheet inside the file (a FLAC's CUESHEET comment or block), as sheet text.
    public var cueSheet: String?
    /// The file's chapters (an MP4 chapter list). MP3's ID3 CHAP frames are read by the daemon.
    public var chapters: [Chapter] = []

    /// `44100:16:2`, as MPD's `Format:` line.
    public var format: String { "\(sampleRate):\(sampleFormat):\(channels)" }

    init(
        _ comments: [(key: String, value: String)], frames: Int64, rate: Int, sampleFormat: String = "16", channels: Int
    ) {
        let mapped = VorbisCommentMapping.map(comments)
        self.init(
            title: mapped.title, artist: mapped.artist, album: mapped.album, trackNumber: mapped.trackNumber,
            durationMs: frames * 1000 / Int64(rate), sampleRate: rate, sampleFormat: sampleFormat,
            channels: channels, tags: mapped.tags, lyrics: mapped.lyrics)
    }

    init(
        title: String? = nil, artist: String? = nil, album: String? = nil, trackNumber: Int? = nil,
        durationMs: Int64?, sampleRate: Int, sampleFormat: String = "16", channels: Int, tags: [TrackTag] = [],
        lyrics: String? = nil
    ) {
        self.title = title
        self.artist = artist
        self.album = album
        self.trackNumber = trackNumber
        self.durationMs = durationMs
        self.sampleRate = sampleRate
        self.sampleFormat = sampleFormat
        self.channels = channels
        self.tags = tags
        self.lyrics = lyrics
    }
}

/// Reads format, duration and tags without decoding the whole file, for the scanner (on
/// jb-scan) and the daemon. Never touches the pipeline.
public enum MediaProbe {
    /// Throws `AudioFileError` (or the library's error) for files that are not playable audio:
    /// empty, text, random bytes, truncated (a length header that promises more than the file
    /// holds), no audio.
    public static func probe(path: String) throws -> ProbedMedia {
        try AudioFileKind.of(path: path).probe(path)
    }

    /// The RIFF header.
    static func wav(path: String) throws -> ProbedMedia {
        let wav = try WAVDecoder(path: path)
        guard let frames = wav.lengthFrames, frames > 0 else {
            throw AudioFileError(path: path, reason: "WAV file holds no audio")
        }
        return ProbedMedia(
            durationMs: frames * 1000 / Int64(wav.format.rate), sampleRate: wav.format.rate,
            sampleFormat: "\(wav.bitsPerSample)", channels: wav.format.channels)
    }

    /// libmpg123 reads the tags and the first frame (the Xing/LAME header gives the exact length).
    static func mp3(path: String) throws -> ProbedMedia {
        let decoder: MPG123Decoder
        // 16 KiB reads: the probe reads the tags and first frames, then a few frames at the end.
        do { decoder = try MPG123Decoder(path: path, readSize: 16384) } catch {
            throw AudioFileError(path: path, reason: "not an MPEG audio file (\(error.message))")
        }
        let format = decoder.format
        var length = decoder.lengthFrames
        if let promised = length {
            // A header-given length the file cannot back up means the file was cut short. An
            // approximate seek near the end reads a few blocks, not the file (an exact one reads
            // every frame header: a first scan would read the whole library from the card). Where
            // it finds no audio (a cut file, or the Xing table rounding past the end of a short
            // one), an exact seek decides.
            let target = max(0, promised - Int64(1152 * 2))
            try? decoder.allowApproximateSeeks(true)
            if !hasAudio(decoder, at: target, channels: format.channels) {
                try? decoder.allowApproximateSeeks(false)
                _ = try? decoder.seek(toFrame: 0)  // clears the read error the failed attempt left
                if !hasAudio(decoder, at: target, channels: format.channels) {
                    throw AudioFileError(path: path, reason: "truncated: the header promises \(promised) frames")
                }
            }
            // Audio past the end the Xing header gives: parts joined together (podcast
            // episodes, a mono intro before a stereo programme), the header being the first
            // part's. One whole read of the frame headers gives the true length.
            if continuesPastHeader(path) {
                try? decoder.allowApproximateSeeks(false)
                length = (try? decoder.scanWholeFile()) ?? length
            }
        }
        let tags = decoder.tags()
        return ProbedMedia(
            title: tags.title, artist: tags.artist, album: tags.album, trackNumber: tags.trackNumber,
            durationMs: length.map { $0 * 1000 / Int64(format.rate) }, sampleRate: format.rate,
            channels: format.channels,
            tags: ID3TagMapping.tags(decoder.textFrames().map { ($0.id, $0.description, $0.text) }))
    }

    /// STREAMINFO and the Vorbis comments (libFLAC's metadata iterator seeks past pictures);
    /// a file whose last 64 KiB hold no frame header within a block of STREAMINFO's length
    /// was cut short.
    static func flac(path: String) throws -> ProbedMedia {
        let decoder = try FLACFileDecoder(path: path)
        let info = decoder.decoder.format
        guard let total = info.totalFrames, total > 0 else {
            throw AudioFileError(path: path, reason: "FLAC file holds no audio (STREAMINFO gives no length)")
        }
        let tail: [UInt8]
        do {
            let size = Int64(try FileSystem.status(path).st_size)
            let fd = try FileDescriptor(path: path, flags: O_RDONLY | O_CLOEXEC)
            let count = Int(min(size, 65536))
            var bytes = [UInt8](repeating: 0, count: count)
            let got = try bytes.withUnsafeMutableBytes {
                try fd.read(into: $0.baseAddress!, count: count, at: size - Int64(count))
            }
            tail = Array(bytes.prefix(got))
        } catch {
            throw AudioFileError(path: path, reason: "\(error)")
        }
        let blockSize = decoder.decoder.maxBlockSize
        guard let start = FLACFrameHeaders.lastFrameStart(in: tail, blockSize: blockSize),
            start + Int64(blockSize) >= total
        else {
            throw AudioFileError(
                path: path, reason: "truncated: STREAMINFO promises \(total) frames, the file ends before")
        }
        var media = ProbedMedia(
            decoder.decoder.comments, frames: total, rate: info.rate, sampleFormat: "\(info.bitsPerSample)",
            channels: info.channels)
        media.cueSheet = embeddedCueSheet(decoder.decoder, rate: info.rate)
        return media
    }

    /// libvorbisfile reads the headers and the last granule position (the exact length).
    static func vorbis(path: String) throws -> ProbedMedia {
        let decoder = try VorbisFileDecoder(path: path)
        guard let frames = decoder.decoder.totalFrames, frames > 0 else {
            throw AudioFileError(path: path, reason: "Ogg Vorbis file holds no audio")
        }
        // MPD decodes Vorbis to float.
        return ProbedMedia(
            decoder.decoder.comments, frames: frames, rate: decoder.format.rate,
            sampleFormat: "f", channels: decoder.format.channels)
    }

    /// libopusfile reads the headers and the last granule position (the exact length at 48 kHz).
    static func opus(path: String) throws -> ProbedMedia {
        let decoder = try OpusFileDecoder(path: path)
        guard let frames = decoder.decoder.totalFrames, frames > 0 else {
            throw AudioFileError(path: path, reason: "Opus file holds no audio")
        }
        return ProbedMedia(
            decoder.decoder.comments, frames: frames, rate: OpusDecoder.rate,
            channels: decoder.format.channels)
    }

    /// Whether MPEG frames follow where the file's Xing header says its audio ends (two small
    /// reads; `MPEGStreamEnd`).
    private static func continuesPastHeader(_ path: String) -> Bool {
        guard let file = try? FileDescriptor(path: path, flags: O_RDONLY) else { return false }
        return MPEGStreamEnd.continuesPastHeader { offset, count in
            var bytes = [UInt8](repeating: 0, count: count)
            let read = bytes.withUnsafeMutableBytes {
                (try? file.read(into: $0.baseAddress!, count: count, at: offset)) ?? 0
            }
            return Array(bytes.prefix(read))
        }
    }

    /// Whether `decoder` yields any audio after seeking to `frame`.
    private static func hasAudio(_ decoder: MPG123Decoder, at frame: Int64, channels: Int) -> Bool {
        guard (try? decoder.seek(toFrame: frame)) != nil else { return false }
        // The buffer carries its room: after the seek the part there may have other channels
        // than the file's start (a joined mono-then-stereo file), and the read stops at a change.
        let buffer = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 1152 * channels)
        defer { buffer.deallocate() }
        for _ in 0..<4 {
            guard let r = try? decoder.read(into: buffer) else { return false }
            if case .frames(let n) = r, n > 0 { return true }
            if case .done(let n) = r { return n > 0 }
        }
        return false
    }
}

extension MediaProbe {
    /// The CUE sheet inside a FLAC file: its CUESHEET comment (sheet text with titles, which
    /// MPD's embcue plugin reads), else its CUESHEET block as sheet text (track numbers and
    /// INDEX 01 times; exact for a CD's, whose offsets are whole CD frames). Its FILE lines
    /// are not used: the tracks are the file's own.
    static func embeddedCueSheet(_ decoder: FLACDecoder, rate: Int) -> String? {
        if let text = decoder.comments.first(where: { $0.key.uppercased() == "CUESHEET" })?.value {
            return text
        }
        guard let block = decoder.cueSheet, rate > 0 else { return nil }
        var text = "FILE \"\" WAVE\n"
        var any = false
        // Lead-out tracks (170 on a CD, 255 otherwise) only mark the end.
        for track in block.tracks where track.isAudio && (1...99).contains(track.number) {
            // The wrapper's index offsets are absolute (the track's offset included).
            let index = track.indices.first { $0.number == 1 } ?? track.indices.first
            let (scaled, overflow) = (index?.offset ?? track.offset).multipliedReportingOverflow(
                by: CueSheet.framesPerSecond)
            guard !overflow else { continue }  // past the end of any file: a damaged block
            let frames = scaled / Int64(rate)
            let (minutes, seconds, rest) = (frames / 4500, frames / 75 % 60, frames % 75)
            func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
            text += "TRACK \(two(Int64(track.number))) AUDIO\nINDEX 01 \(two(minutes)):\(two(seconds)):\(two(rest))\n"
            any = true
        }
        return any ? text : nil
    }
}
