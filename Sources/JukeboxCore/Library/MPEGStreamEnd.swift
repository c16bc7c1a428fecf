/// Where an MP3's Xing/LAME (or "Info") header says its audio ends, and whether more MPEG
/// audio follows there: files joined together (podcast episodes cut together, a mono intro
/// before a stereo programme) carry the first part's header, which promises only that part.
/// Found from a few bytes at two places, so every MP3 of a library can be checked at scan
/// time without reading it. Pure: the caller does the reading.
public enum MPEGStreamEnd {
    /// Whether MPEG audio frames go on past the end the file's Xing header gives; false when
    /// the file has no such header (its length is then estimated anyway) or nothing follows.
    public static func continuesPastHeader(_ read: (Int64, Int) -> [UInt8]) -> Bool {
        guard let end = headerEnd(read) else { return false }
        let head = read(end, 4)
        guard let length = frameLength(head) else { return false }
        // Two frames in a row: a tag or junk after the stream rarely passes as both.
        let (next, overflow) = end.addingReportingOverflow(Int64(length))
        return !overflow && frameLength(read(next, 4)) != nil
    }

    /// The offset past the audio, as the first frame's Xing/Info header gives it (the stream's
    /// bytes counted from that frame); nil without one.
    static func headerEnd(_ read: (Int64, Int) -> [UInt8]) -> Int64? {
        let start = Int64(ID3Lyrics.tagSize(read(0, 10)) ?? 0)
        let frame = read(start, 4 + 32 + 16)
        guard frame.count == 52, frameLength(Array(frame[0..<4])) != nil else { return nil }
        let version = (frame[1] >> 3) & 3
        let mono = (frame[3] >> 6) & 3 == 3
        let sideInfo = version == 3 ? (mono ? 17 : 32) : (mono ? 9 : 17)
        let tag = 4 + sideInfo
        guard frame[tag..<tag + 4].elementsEqual("Xing".utf8) || frame[tag..<tag + 4].elementsEqual("Info".utf8)
        else { return nil }
        let flags = bigEndian32(frame[tag + 4..<tag + 8])
        guard flags & 2 != 0 else { return nil }  // no byte count
        // The byte count follows the frame count when that is present.
        let at = flags & 1 != 0 ? tag + 12 : tag + 8
        let bytes = Int64(bigEndian32(frame[at..<at + 4]))
        guard bytes > 0 else { return nil }
        return start + bytes
    }

    /// The length in bytes of the MPEG audio frame whose header is `head`; nil when it is no
    /// valid header (sync, version, layer, bitrate and rate indexes) or a free-format one.
    static func frameLength(_ head: [UInt8]) -> Int? {
        guard head.count == 4, head[0] == 0xFF, head[1] & 0xE0 == 0xE0 else { return nil }
        let version = Int((head[1] >> 3) & 3)  // 0: MPEG 2.5, 2: MPEG 2, 3: MPEG 1
        let layer = Int((head[1] >> 1) & 3)  // 3: I, 2: II, 1: III
        let bitrateIndex = Int(head[2] >> 4)
        let rateIndex = Int((head[2] >> 2) & 3)
        guard version != 1, layer != 0, (1...14).contains(bitrateIndex), rateIndex != 3 else { return nil }
        let padding = Int((head[2] >> 1) & 1)
        let rates = [44100, 48000, 32000]
        let rate = rates[rateIndex] >> (version == 3 ? 0 : version == 2 ? 1 : 2)
        let mpeg1 = version == 3
        let kbps: [Int]
        switch (mpeg1, layer) {
        case (true, 3): kbps = [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
        case (true, 2): kbps = [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
        case (true, _): kbps = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
        case (false, 3): kbps = [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
        case (false, _): kbps = [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        }
        let bitrate = kbps[bitrateIndex - 1] * 1000
        if layer == 3 { return (12 * bitrate / rate + padding) * 4 }
        let perSample = layer == 1 && !mpeg1 ? 72 : 144
        return perSample * bitrate / rate + padding
    }

    private static func bigEndian32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }
}
