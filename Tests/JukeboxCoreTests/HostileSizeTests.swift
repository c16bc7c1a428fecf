import Testing

@testable import JukeboxCore

/// A file of `size` bytes, zero but for `pieces` at their offsets: a file as large as Int64.max
/// without holding it, so that sizes and offsets near the top of Int64 can be walked. Records
/// the largest read asked of it (a walker must not ask for what a size field claims).
final class SparseFile {
    let size: Int64
    let pieces: [(offset: Int64, bytes: [UInt8])]
    private(set) var largestRead = 0

    init(size: Int64, _ pieces: [(offset: Int64, bytes: [UInt8])]) {
        self.size = size
        self.pieces = pieces
    }

    /// Up to `count` bytes at `offset` (fewer at the end of the file), as the store's reader.
    func read(_ offset: Int64, _ count: Int) -> [UInt8] {
        largestRead = max(largestRead, count)
        guard offset >= 0, offset < size, count > 0 else { return [] }
        let length = Int(min(Int64(min(count, 1 << 20)), size - offset))
        var bytes = [UInt8](repeating: 0, count: length)
        for piece in pieces {
            for (k, byte) in piece.bytes.enumerated() {
                let (at, overflow) = piece.offset.addingReportingOverflow(Int64(k))
                if !overflow, at >= offset, at - offset < Int64(length) { bytes[Int(at - offset)] = byte }
            }
        }
        return bytes
    }
}

/// MP4 atom headers: a 32-bit size, or size 1 and a 64-bit size after the type.
enum AtomBytes {
    static func header(_ size: UInt32, _ type: String) -> [UInt8] { bigEndian(UInt64(size), 4) + Array(type.utf8) }

    static func largeHeader(_ size: UInt64, _ type: String) -> [UInt8] {
        header(1, type) + bigEndian(size, 8)
    }

    static func bigEndian(_ value: UInt64, _ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(count - 1 - $0))) }
    }
}

/// Container walkers fed sizes and offsets no encoder writes (ISO/IEC 14496-12's size 0 and
/// 64-bit sizes, sizes below a header or past the parent, offsets near Int64.max): each stops
/// or gives what fits, and never traps on arithmetic (issue 34: a size-0 `mdat` at the end
/// of an M4A stopped the daemon at every start).
@Suite struct HostileSizeTests {
    typealias Atom = MP4CoverAtoms.Atom
    static let ftyp = AtomBytes.header(16, "ftyp") + Array("M4A \0\0\0\0".utf8)
    static let top = Int64.max

    /// One table row: a file, and the atoms its top level holds (type, body, end).
    struct Case: CustomStringConvertible, Sendable {
        var description: String
        var size: Int64
        var pieces: [(offset: Int64, bytes: [UInt8])]
        var atoms: [String]
    }

    static func atoms(_ file: SparseFile) -> [String] {
        MP4CoverAtoms.children(of: Atom(bodyOffset: 0, end: file.size), file.read).map {
            "\($0.type) \($0.bodyOffset)..<\($0.end)"
        }
    }

    static let topLevelCases: [Case] = [
        Case(
            description: "size 0 last: to the end of the file", size: 132,
            pieces: [(0, ftyp), (16, AtomBytes.header(8, "moov")), (24, AtomBytes.header(0, "mdat"))],
            atoms: ["ftyp 8..<16", "moov 24..<24", "mdat 32..<132"]),
        Case(
            description: "size 0 in a file of Int64.max bytes", size: top,
            pieces: [(0, ftyp), (16, AtomBytes.header(0, "mdat"))],
            atoms: ["ftyp 8..<16", "mdat 24..<\(top)"]),
        Case(
            description: "a 64-bit size to the last byte of Int64.max", size: top,
            pieces: [(0, ftyp), (16, AtomBytes.largeHeader(UInt64(top - 16), "mdat"))],
            atoms: ["ftyp 8..<16", "mdat 32..<\(top)"]),
        Case(
            description: "a 64-bit size of Int64.max: past the file", size: top,
            pieces: [(0, ftyp), (16, AtomBytes.largeHeader(UInt64(top), "mdat"))], atoms: ["ftyp 8..<16"]),
        Case(
            description: "a 64-bit size of UInt64.max", size: top,
            pieces: [(0, ftyp), (16, AtomBytes.largeHeader(.max, "mdat"))], atoms: ["ftyp 8..<16"]),
        Case(
            description: "a 64-bit size of 2^63 (negative as Int64)", size: top,
            pieces: [(0, ftyp), (16, AtomBytes.largeHeader(1 << 63, "mdat"))], atoms: ["ftyp 8..<16"]),
        Case(
            description: "a 64-bit size below its 16-byte header", size: 64,
            pieces: [(0, ftyp), (16, AtomBytes.largeHeader(15, "mdat"))], atoms: ["ftyp 8..<16"]),
        Case(
            description: "a 64-bit size of just its header", size: 40,
            pieces: [(0, ftyp), (16, AtomBytes.largeHeader(16, "mdat")), (32, AtomBytes.header(8, "free"))],
            atoms: ["ftyp 8..<16", "mdat 32..<32", "free 40..<40"]),
        Case(
            description: "a 32-bit size below the header", size: 64,
            pieces: [(0, ftyp), (16, AtomBytes.header(7, "mdat"))], atoms: ["ftyp 8..<16"]),
        Case(
            description: "a 32-bit size past the file", size: 64,
            pieces: [(0, ftyp), (16, AtomBytes.header(.max, "mdat"))], atoms: ["ftyp 8..<16"]),
        Case(
            description: "an atom in the last 8 bytes before Int64.max", size: top,
            pieces: [
                (0, ftyp), (16, AtomBytes.largeHeader(UInt64(top - 8 - 16), "mdat")),
                (top - 8, AtomBytes.header(8, "free")),
            ],
            atoms: ["ftyp 8..<16", "mdat 32..<\(top - 8)", "free \(top)..<\(top)"]),
        Case(
            description: "size 0 in the last 8 bytes before Int64.max", size: top,
            pieces: [
                (0, ftyp), (16, AtomBytes.largeHeader(UInt64(top - 8 - 16), "mdat")),
                (top - 8, AtomBytes.header(0, "free")),
            ],
            atoms: ["ftyp 8..<16", "mdat 32..<\(top - 8)", "free \(top)..<\(top)"]),
        Case(
            description: "a 64-bit header with 12 bytes left before Int64.max", size: top,
            pieces: [
                (0, ftyp), (16, AtomBytes.largeHeader(UInt64(top - 12 - 16), "mdat")),
                (top - 12, AtomBytes.header(1, "free") + [0, 0, 0, 0]),
            ],
            atoms: ["ftyp 8..<16", "mdat 32..<\(top - 12)"]),
        Case(
            description: "7 bytes left before Int64.max", size: top,
            pieces: [(0, ftyp), (16, AtomBytes.largeHeader(UInt64(top - 7 - 16), "mdat"))],
            atoms: ["ftyp 8..<16", "mdat 32..<\(top - 7)"]),
    ]

    @Test(arguments: topLevelCases)
    func atomsAtTheTopLevel(_ row: Case) {
        let file = SparseFile(size: row.size, row.pieces)
        #expect(Self.atoms(file) == row.atoms)
        #expect(file.largestRead <= 8)
    }

    /// Inside a parent the same rules hold against the parent's end: size 0 runs to it, a size
    /// past it ends the list; a parent near Int64.max, or whose body starts past its end (a
    /// `meta` too short for its version and flags), walks as well.
    @Test func atomsInsideAParent() {
        let body: [UInt8] = AtomBytes.header(16, "free") + [UInt8](repeating: 7, count: 8) + AtomBytes.header(0, "skip")
        let near = SparseFile(size: Self.top, [(Self.top - 100, body)])
        let parent = Atom(type: "moov", bodyOffset: Self.top - 100, end: Self.top - 40)
        #expect(
            MP4CoverAtoms.children(of: parent, near.read).map { "\($0.type) \($0.bodyOffset)..<\($0.end)" } == [
                "free \(Self.top - 92)..<\(Self.top - 84)", "skip \(Self.top - 76)..<\(Self.top - 40)",
            ])
        let past = SparseFile(size: 64, [(0, AtomBytes.header(24, "moov") + AtomBytes.header(17, "free"))])
        #expect(MP4CoverAtoms.children(of: Atom(bodyOffset: 8, end: 24), past.read).isEmpty)
        let shortMeta = Atom(type: "meta", bodyOffset: Self.top - 2, end: Self.top)
        #expect(MP4CoverAtoms.children(of: MP4CoverAtoms.metaBody(shortMeta, near.read), near.read).isEmpty)
        #expect(MP4CoverAtoms.children(of: Atom(bodyOffset: Self.top, end: Self.top - 4), near.read).isEmpty)
    }

    /// The file of issue 34, in bytes: ftyp, moov with lyrics and a cover, then an `mdat` of
    /// size 0; and the same with `moov` last, of size 0 itself, after a 64-bit `mdat`. The
    /// lyrics and the cover are found in both (the walk used to trap on the first).
    @Test func lyricsAndCoverBeforeOrInASizeZeroLastAtom() throws {
        typealias Atoms = MP4CoverAtomsTests
        let lyr = MP4LyricsAtomTests.item(MP4LyricsAtomTests.lyr, Atoms.data(type: 1, Array("la la".utf8)))
        let ilst = Atoms.atom("ilst", lyr + Atoms.atom("covr", Atoms.data(type: 14, Atoms.png)))
        let udta = Atoms.atom("udta", Atoms.atom("meta", [0, 0, 0, 0] + Atoms.hdlr + ilst))
        let moovBody = Atoms.atom("mvhd", [UInt8](repeating: 0, count: 100)) + udta
        let audio = [UInt8](repeating: 0x21, count: 300)
        let mdatLast = Self.ftyp + Atoms.atom("moov", moovBody) + AtomBytes.header(0, "mdat") + audio
        let moovLast =
            Self.ftyp + AtomBytes.largeHeader(16 + UInt64(audio.count), "mdat") + audio
            + AtomBytes.header(0, "moov") + moovBody
        for bytes in [mdatLast, moovLast] {
            let size = Int64(bytes.count)
            #expect(MP4LyricsAtom.read(ID3TagTests.reader(bytes), fileSize: size) == .text("la la"))
            #expect(MP4CoverAtoms.firstPicture(ID3TagTests.reader(bytes), fileSize: size)?.mimeType == "image/png")
        }
    }

    /// A FLAC PICTURE block's three 32-bit lengths are held against the block: a MIME type or
    /// description "of 4 GiB" is no picture, and is not read.
    @Test func flacPictureLengthsPastTheBlock() {
        func file(mime: UInt32 = 9, description: UInt32 = 0, data: UInt32 = 3) -> SparseFile {
            let body =
                AtomBytes.bigEndian(3, 4) + AtomBytes.bigEndian(UInt64(mime), 4) + Array("image/png".utf8)
                + AtomBytes.bigEndian(UInt64(description), 4) + [UInt8](repeating: 0, count: 16)
                + AtomBytes.bigEndian(UInt64(data), 4) + [1, 2, 3]
            let header: [UInt8] = [0x86] + AtomBytes.bigEndian(UInt64(body.count), 3)
            return SparseFile(size: 1 << 40, [(0, Array("fLaC".utf8) + header + body)])
        }
        func picture(_ file: SparseFile) -> EmbeddedPicture? {
            FLACMetadataBlocks.read(file.read)?.firstPicture(file.read)
        }
        #expect(picture(file()) == EmbeddedPicture(mimeType: "image/png", location: .inFile(offset: 49, size: 3)))
        for hostile in [
            file(mime: .max), file(mime: 1 << 31), file(description: .max), file(data: .max), file(data: 4),
        ] {
            #expect(picture(hostile) == nil)
            #expect(hostile.largestRead <= 16)
        }
    }

    /// ID3v2 sizes at their largest (a v2.3 frame size is 32 bits, a v2.4 one 28; an extended
    /// header's size likewise) in a tag that claims more than the file holds: frames that do not
    /// fit the tag end the list.
    @Test func id3SizesAtTheirLargest() {
        func tag(version: UInt8, flags: UInt8 = 0, _ body: [UInt8]) -> [UInt8] {
            Array("ID3".utf8) + [version, 0, flags, 0x7F, 0x7F, 0x7F, 0x7F] + body
        }
        let title: [UInt8] = Array("TIT2".utf8) + [0, 0, 0, 3, 0, 0, 3, 0x61, 0x62]
        let huge: [UInt8] = Array("APIC".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0, 0]
        let hugeSyncsafe: [UInt8] = Array("APIC".utf8) + [0x7F, 0x7F, 0x7F, 0x7F, 0, 0]
        let cases: [([UInt8], [String])] = [
            (tag(version: 3, title + huge), ["TIT2"]),
            (tag(version: 4, title + hugeSyncsafe + title), ["TIT2"]),
            (tag(version: 3, flags: 0x40, [0xFF, 0xFF, 0xFF, 0xFF] + title), []),
            (tag(version: 4, flags: 0x40, [0xFF, 0xFF, 0xFF, 0xFF] + title), []),
            (tag(version: 4, flags: 0x50, [0x7F, 0x7F, 0x7F, 0x7F] + title), []),
        ]
        for (bytes, ids) in cases {
            let file = SparseFile(size: Int64(bytes.count), [(0, bytes)])
            let frames = ID3Tag.read(file.read)?.frames ?? []
            #expect(frames.map(\.id) == ids)
            #expect(frames.allSatisfy { $0.bodyOffset + Int64($0.bodySize) <= 10 + 0x0FFF_FFFF + 10 })
            #expect(ID3Tag.read(file.read)?.chapters(file.read).isEmpty ?? true)
            #expect(ID3Tag.read(file.read)?.firstPicture(file.read) == nil)
        }
    }

    /// A CUE sheet's longest time (999,999,999 minutes) at a rate a WAV header can claim (up to
    /// 2^32 - 1 Hz): its sample frame is the largest rather than an overflow; at real rates the
    /// frame is the exact floor it always was.
    @Test func cueFramesAtAnyRate() throws {
        let longest = try #require(CueSheet.frames("999999999:59:74"))
        #expect(CueSheet.sampleFrame(longest, rate: 4_294_967_295) == .max)
        for rate in [8000, 22050, 44100, 48000, 96000, 192_000] {
            for frames: Int64 in [0, 1, 74, 75, 4499, 4_500_000_003, longest] {
                #expect(CueSheet.sampleFrame(frames, rate: rate) == frames * Int64(rate) / 75, "\(frames) at \(rate)")
            }
        }
    }
}
