import JukeboxCore

extension PlaybackItem {
    /// The decoder for the item's file (or station: `streams`; or a file still downloading:
    /// `growing`), limited to its span when it has one.
    func openDecoder(streams: LiveStreams, growing: GrowingFiles) throws -> any AudioDecoder {
        let decoder = try JukeboxAudio.openDecoder(path: path, streams: streams, growing: growing)
        guard let span else { return decoder }
        return try SpanDecoder(decoder, frames: span, path: path)
    }
}

/// A CUE sheet's track: the frames `span` of another decoder's file as a stream of its own
/// (its frame 0 is the span's first), so positions, seeks and lengths are the track's, and
/// consecutive tracks of one file join sample-exactly (every decoder seeks to the exact frame).
/// Wraps any decoder, so each format's decoder knows nothing of CUE sheets. A source wider
/// than 16 bits is read wide through it too.
final class SpanDecoder: WideAudioDecoder {
    private let inner: any AudioDecoder
    private let wideInner: (any WideAudioDecoder)?
    /// The span in the file's frames; `upperBound` `.max` is the file's end.
    private let span: Range<Int64>
    /// The file frame the next read returns.
    private var position: Int64

    init(_ inner: any AudioDecoder, frames span: Range<Int64>, path: String) throws {
        if let length = inner.lengthFrames, span.lowerBound >= length {
            throw AudioFileError(
                path: path,
                reason: "the track starts at frame \(span.lowerBound), past the file's end (\(length) frames)")
        }
        self.inner = inner
        wideInner = inner as? any WideAudioDecoder
        self.span = span
        position = span.lowerBound
        if span.lowerBound > 0 { try inner.seek(toFrame: span.lowerBound) }
    }

    var format: AudioFormat { inner.format }

    var lengthFrames: Int64? {
        let end = span.upperBound == .max ? inner.lengthFrames : span.upperBound
        return end.map { max(0, $0 - span.lowerBound) }
    }

    func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws -> DecodeResult {
        let channels = format.channels
        return try read(buffer.count / channels) { [inner] in
            try inner.read(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<$0 * channels]))
        }
    }

    var bitsPerSample: Int { wideInner?.bitsPerSample ?? 16 }

    func read(wide buffer: UnsafeMutableBufferPointer<Int32>) throws -> DecodeResult {
        guard let wideInner else { preconditionFailure("read(wide:) of an S16 source") }
        let channels = format.channels
        return try read(buffer.count / channels) {
            try wideInner.read(wide: UnsafeMutableBufferPointer(rebasing: buffer[0..<$0 * channels]))
        }
    }

    /// Up to `capacityFrames` frames of the span by `decode(frames)`, ending at its end.
    private func read(_ capacityFrames: Int, _ decode: (Int) throws -> DecodeResult) throws -> DecodeResult {
        let left = span.upperBound - position
        if left <= 0 { return DecodeResult(frames: 0, isEnd: true, formatChanged: false) }
        var result = try decode(Int(min(Int64(capacityFrames), left)))
        position += Int64(result.frames)
        if position >= span.upperBound { result.isEnd = true }
        return result
    }

    func seek(toFrame frame: Int64) throws {
        try inner.seek(toFrame: span.lowerBound + frame)
        position = span.lowerBound + frame
    }

    var seekHint: SeekHint? { inner.seekHint }

    func seek(toFrame frame: Int64, hint: SeekHint?) throws -> Bool {
        let used = try inner.seek(toFrame: span.lowerBound + frame, hint: hint)
        position = span.lowerBound + frame
        return used
    }
}
