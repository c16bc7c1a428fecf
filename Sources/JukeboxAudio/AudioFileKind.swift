import Glibc
import JukeboxCore
import LinuxSupport
import Logging

/// One kind of audio file the player plays: how to recognise it, how to decode it and how the
/// scanner reads its length and tags. Adding a format is writing its `AudioDecoder` and probe
/// and adding a kind to `all`; the decode thread, the scanner's file walk and the probe use
/// nothing else.
public struct AudioFileKind: Sendable {
    /// For messages ("FLAC").
    public let name: String
    /// Lowercased file-name extensions the scanner collects for this kind.
    public let extensions: Set<String>
    /// Whether the file's first bytes say it is this kind.
    let recognises: @Sendable (FileHead) -> Bool
    let open: @Sendable (String) throws -> any AudioDecoder
    let probe: @Sendable (String) throws -> ProbedMedia

    public init(
        name: String, extensions: Set<String>, recognises: @escaping @Sendable (FileHead) -> Bool,
        open: @escaping @Sendable (String) throws -> any AudioDecoder,
        probe: @escaping @Sendable (String) throws -> ProbedMedia
    ) {
        self.name = name
        self.extensions = extensions
        self.recognises = recognises
        self.open = open
        self.probe = probe
    }

    /// Every kind, in the order their signatures are tried. MP3 is last: its signatures are
    /// the weakest, and libmpg123 resyncs past junk, so it also takes what no kind claims by
    /// content or name.
    public static let all: [AudioFileKind] = [.wav, .flac, .oggVorbis, .opus, .mp4, .mp3]

    /// Every extension the scanner collects.
    public static var extensions: Set<String> { all.reduce(into: []) { $0.formUnion($1.extensions) } }

    /// The kind of the file at `path`: the first whose signature its first bytes carry, else the
    /// one its extension names (so a file that is not what its name says gets that decoder's
    /// message), else MP3.
    public static func of(path: String) throws(AudioFileError) -> AudioFileKind {
        let head = try FileHead(path: path)
        if let kind = all.first(where: { $0.recognises(head) }) { return kind }
        let ext = head.lowercasedExtension
        return all.first { ext.map($0.extensions.contains) == true } ?? .mp3
    }
}

/// The first bytes of a file, and those after a leading ID3v2 tag (FLAC files may carry one).
public struct FileHead: Sendable {
    public let path: String
    public let bytes: [UInt8]
    /// The 16 bytes after a leading ID3v2 tag; `bytes` when there is none.
    public let afterID3: [UInt8]

    init(path: String) throws(AudioFileError) {
        self.path = path
        let fd: FileDescriptor
        do { fd = try FileDescriptor(path: path, flags: O_RDONLY | O_CLOEXEC) } catch {
            throw AudioFileError(path: path, reason: "\(error.call) failed: \(error.message)")
        }
        func read(_ count: Int, at offset: Int64) -> [UInt8] {
            var b = [UInt8](repeating: 0, count: count)
            let n =
                (try? b.withUnsafeMutableBytes { try fd.read(into: $0.baseAddress!, count: count, at: offset) }) ?? 0
            return Array(b.prefix(n))
        }
        bytes = read(64, at: 0)
        if bytes.count >= 10, bytes.starts(with: "ID3".utf8) {
            let size = bytes[6..<10].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
            afterID3 = read(16, at: Int64(10 + size + (bytes[5] & 0x10 != 0 ? 10 : 0)))
        } else {
            afterID3 = bytes
        }
    }

    var lowercasedExtension: String? {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        return path[path.index(after: dot)...].lowercased()
    }

    /// Whether `text` (ASCII) is at `offset` of `bytes`.
    func has(_ text: String, at offset: Int) -> Bool {
        let expected = Array(text.utf8)
        return bytes.count >= offset + expected.count && bytes[offset..<offset + expected.count].elementsEqual(expected)
    }

    /// The first packet of an Ogg file's first page starts with `magic` (the codec's ID header).
    func oggFirstPacket(startsWith magic: [UInt8]) -> Bool {
        guard has("OggS", at: 0), bytes.count > 27 else { return false }
        let start = 27 + Int(bytes[26])
        return bytes.count >= start + magic.count && bytes[start..<start + magic.count].elementsEqual(magic)
    }
}

extension AudioFileKind {
    public static let wav = AudioFileKind(
        name: "WAV", extensions: ["wav"], recognises: { $0.has("RIFF", at: 0) && $0.has("WAVE", at: 8) },
        open: { try WAVDecoder(path: $0) }, probe: MediaProbe.wav)

    /// An ID3v2 tag (a FLAC behind one is claimed first) or an MPEG frame sync at the start.
    public static let mp3 = AudioFileKind(
        name: "MP3", extensions: ["mp3"],
        recognises: {
            $0.has("ID3", at: 0) || ($0.bytes.count > 1 && $0.bytes[0] == 0xFF && $0.bytes[1] & 0xE0 == 0xE0)
        },
        open: { try MP3Decoder(path: $0) }, probe: MediaProbe.mp3)

    public static let flac = AudioFileKind(
        name: "FLAC", extensions: ["flac"], recognises: { $0.afterID3.starts(with: "fLaC".utf8) },
        open: { try FLACFileDecoder(path: $0) }, probe: MediaProbe.flac)

    public static let oggVorbis = AudioFileKind(
        name: "Ogg Vorbis", extensions: ["ogg", "oga"],
        recognises: { $0.oggFirstPacket(startsWith: [1] + Array("vorbis".utf8)) },
        open: { try VorbisFileDecoder(path: $0) }, probe: MediaProbe.vorbis)

    public static let opus = AudioFileKind(
        name: "Opus", extensions: ["opus"], recognises: { $0.oggFirstPacket(startsWith: Array("OpusHead".utf8)) },
        open: { try OpusFileDecoder(path: $0) }, probe: MediaProbe.opus)
}

/// Opens the right decoder for a file (see `AudioFileKind.of`), or for a live stream when
/// `path` is an http(s) URL and `streams` (a pipeline's) is given (`StreamDecoder`), or for a
/// file still downloading when `growing` has it (`GrowingFileDecoder`); a file of more than
/// two channels comes mixed down to stereo (`DownmixedDecoder`).
public func openDecoder(path: String, streams: LiveStreams? = nil, growing: GrowingFiles? = nil) throws
    -> any AudioDecoder
{
    if StationPlaylist.isStreamURL(path) {
        guard let streams else { throw AudioFileError(path: path, reason: "a stream plays only in the pipeline") }
        return try StreamDecoder(url: path, logger: Logger(label: "jukebox.radio"), streams: streams)
    }
    if let file = growing?.file(path: path) { return DownmixedDecoder(try GrowingFileDecoder(file)) }
    return DownmixedDecoder(try AudioFileKind.of(path: path).open(path))
}
