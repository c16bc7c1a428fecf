import Glibc
import JukeboxCore
import LinuxSupport

/// A pure-Swift RIFF/WAVE reader: integer PCM of 8, 16, 24 or 32 bits, 1 to 8 channels,
/// WAVE_FORMAT_PCM or WAVE_FORMAT_EXTENSIBLE with the PCM subformat. Odd-sized chunks are
/// padded; a data chunk that claims more than the file holds is read up to the end of the file.
/// Output is S16 (wider samples are narrowed with TPDF dither, 8-bit is unsigned and shifted up).
public final class WAVDecoder: WideAudioDecoder {
    public let path: String
    public let format: AudioFormat
    public let bitsPerSample: Int
    /// WAVE_FORMAT_EXTENSIBLE's channel mask, else WAVE's order.
    public let speakers: [SpeakerPosition]
    private let fd: FileDescriptor
    private let dataOffset: Int64
    private let dataFrames: Int64
    private let blockAlign: Int
    private var position: Int64 = 0
    /// The file's bytes read ahead: `readAhead` bytes from `scratchOffset` (a file offset),
    /// `scratchCount` of them valid. One pread per 64 KiB instead of one per ring chunk (8 KiB):
    /// each read is a system call, and a round trip on a network or 9p file system.
    private var scratch: [UInt8] = []
    private var scratchOffset: Int64 = 0
    private var scratchCount = 0
    private let readAhead: Int
    /// 24- and 32-bit samples, left-justified, before they are narrowed.
    private var wide: [Int32] = []
    private var dither = TPDFDither()

    public init(path: String) throws(AudioFileError) {
        self.path = path
        let file: FileDescriptor
        do { file = try FileDescriptor(path: path, flags: O_RDONLY) } catch {
            throw AudioFileError(path: path, reason: "\(error.call) failed: \(error.message)")
        }
        fd = file
        var st = stat()
        guard fstat(file.rawValue, &st) == 0 else { throw AudioFileError(path: path, reason: "fstat failed") }
        let fileSize = Int64(st.st_size)

        func bytes(_ offset: Int64, _ count: Int) throws(AudioFileError) -> [UInt8] {
            var b = [UInt8](repeating: 0, count: count)
            let n: Int
            do {
                n = try b.withUnsafeMutableBytes { raw throws(Errno) in
                    try file.read(into: raw.baseAddress!, count: count, at: offset)
                }
            } catch { throw AudioFileError(path: path, reason: "\(error)") }
            return Array(b[0..<n])
        }
        func u16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
        func u32(_ b: [UInt8], _ i: Int) -> Int64 { Int64(u16(b, i)) | Int64(u16(b, i + 2)) << 16 }

        let head = try bytes(0, 12)
        guard head.count == 12, head[0..<4].elementsEqual("RIFF".utf8), head[8..<12].elementsEqual("WAVE".utf8) else {
            throw AudioFileError(path: path, reason: "not a RIFF/WAVE file")
        }
        var offset: Int64 = 12
        var fmt: (tag: Int, channels: Int, rate: Int, align: Int, bits: Int, mask: UInt64)?
        var data: (offset: Int64, size: Int64)?
        while offset + 8 <= fileSize, data == nil || fmt == nil {
            let h = try bytes(offset, 8)
            guard h.count == 8 else { break }
            let size = u32(h, 4)
            let id = String(decoding: h[0..<4], as: UTF8.self)
            if id == "fmt " {
                let f = try bytes(offset + 8, Int(min(size, 40)))
                guard f.count >= 16 else { throw AudioFileError(path: path, reason: "short fmt chunk") }
                var tag = u16(f, 0)
                var mask: UInt64 = 0
                if tag == 0xFFFE {
                    guard f.count >= 26 else {
                        throw AudioFileError(path: path, reason: "short WAVE_FORMAT_EXTENSIBLE")
                    }
                    tag = u16(f, 24)  // first two bytes of the SubFormat GUID
                    mask = UInt64(u32(f, 20))
                }
                fmt = (tag, u16(f, 2), Int(u32(f, 4)), u16(f, 12), u16(f, 14), mask)
            } else if id == "data" {
                let available = fileSize - (offset + 8)
                let claimed = (size == 0 || size == 0xFFFF_FFFF) ? available : size
                data = (offset + 8, min(claimed, available))
            }
            offset += 8 + size + (size & 1)
        }
        guard let fmt else { throw AudioFileError(path: path, reason: "no fmt chunk") }
        guard let data else { throw AudioFileError(path: path, reason: "no data chunk") }
        guard fmt.tag == 1 else { throw AudioFileError(path: path, reason: "unsupported WAVE format tag \(fmt.tag)") }
        try checkChannels(fmt.channels, path)
        guard [8, 16, 24, 32].contains(fmt.bits), fmt.rate > 0 else {
            throw AudioFileError(path: path, reason: "unsupported \(fmt.bits)-bit PCM at \(fmt.rate) Hz")
        }
        let align = fmt.channels * fmt.bits / 8
        format = AudioFormat(rate: fmt.rate, channels: fmt.channels)
        speakers = .wave(mask: fmt.mask, channels: fmt.channels) ?? .standard(channels: fmt.channels)
        bitsPerSample = fmt.bits
        blockAlign = align
        readAhead = max(1, 65536 / align) * align
        dataOffset = data.offset
        dataFrames = data.size / Int64(align)
    }

    public var lengthFrames: Int64? { dataFrames }

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws -> DecodeResult {
        try readBlock(capacityFrames: buffer.count / format.channels) { b, samples, at in
            let out = buffer.baseAddress! + at
            switch bitsPerSample / 8 {
            case 1:
                for i in 0..<samples { out[i] = Int16(Int(b[i]) - 128) << 8 }
            case 2:
                // Little-endian samples, as the host's (Linux on x86-64 and ARM): copied as they are.
                UnsafeMutableRawPointer(out).copyMemory(from: b.baseAddress!, byteCount: 2 * samples)
                for i in 0..<samples { out[i] = Int16(littleEndian: out[i]) }
            default:
                if wide.count < samples { wide = [Int32](repeating: 0, count: samples) }
                wide.withUnsafeMutableBufferPointer { leftJustified(b, samples, into: $0.baseAddress!) }
                wide.withUnsafeBufferPointer { dither.narrow($0.baseAddress!, bits: 32, into: out, count: samples) }
            }
        }
    }

    public func read(wide buffer: UnsafeMutableBufferPointer<Int32>) throws -> DecodeResult {
        try readBlock(capacityFrames: buffer.count / format.channels) { b, samples, at in
            leftJustified(b, samples, into: buffer.baseAddress! + at)
        }
    }

    /// The file's samples in the top bits of 32 (8-bit ones are unsigned).
    private func leftJustified(_ b: UnsafeBufferPointer<UInt8>, _ samples: Int, into out: UnsafeMutablePointer<Int32>) {
        let width = bitsPerSample / 8
        for i in 0..<samples {
            var v: UInt32 = 0
            for k in 0..<width { v |= UInt32(b[i * width + k]) << (8 * (4 - width + k)) }
            out[i] = Int32(bitPattern: width == 1 ? v ^ 0x8000_0000 : v)
        }
    }

    /// Reads up to `capacityFrames` frames and hands their bytes to `convert` in pieces: the
    /// bytes, their sample count and the index of their first sample in the output. Fewer
    /// frames than asked (a file shorter than its header says) end the stream.
    private func readBlock(
        capacityFrames: Int, _ convert: (UnsafeBufferPointer<UInt8>, Int, Int) -> Void
    ) throws -> DecodeResult {
        let frames = Int(min(Int64(capacityFrames), dataFrames - position))
        guard frames > 0 else { return DecodeResult(frames: 0, isEnd: true, formatChanged: false) }
        var done = 0
        while done < frames {
            let offset = dataOffset + (position + Int64(done)) * Int64(blockAlign)
            if offset < scratchOffset || offset >= scratchOffset + Int64(scratchCount) {
                try fill(at: offset, atLeast: (frames - done) * blockAlign)
            }
            let skip = Int(offset - scratchOffset)
            let count = min(frames - done, (scratchCount - skip) / blockAlign)
            guard count > 0 else { break }
            scratch.withUnsafeBytes { raw in
                let bytes = UnsafeBufferPointer(
                    rebasing: raw.bindMemory(to: UInt8.self)[skip..<skip + count * blockAlign])
                convert(bytes, count * format.channels, done * format.channels)
            }
            done += count
        }
        position += Int64(done)
        return DecodeResult(frames: done, isEnd: position >= dataFrames || done < frames, formatChanged: false)
    }

    /// Reads the data from `offset` into `scratch`: `readAhead` bytes, or `atLeast` when more,
    /// up to the end of the data.
    private func fill(at offset: Int64, atLeast bytes: Int) throws {
        let dataEnd = dataOffset + dataFrames * Int64(blockAlign)
        let byteCount = Int(min(Int64(max(readAhead, bytes)), dataEnd - offset))
        if scratch.count < byteCount { scratch = [UInt8](repeating: 0, count: byteCount) }
        let fd = self.fd
        scratchOffset = offset
        scratchCount = 0
        scratchCount = try scratch.withUnsafeMutableBytes { raw throws(Errno) in
            try fd.read(into: raw.baseAddress!, count: byteCount, at: offset)
        }
    }

    public func seek(toFrame frame: Int64) throws {
        position = min(max(0, frame), dataFrames)
    }
}
