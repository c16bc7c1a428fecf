import CLazyLibraries
import CSoxr

/// A failed libsoxr call: the call and libsoxr's own text (its errors are strings).
public struct SoxrError: Error, Equatable, CustomStringConvertible, Sendable {
    public var call: String
    public var message: String

    public var description: String { "\(call) failed: \(message)" }
}

/// One libsoxr resampler for interleaved S16 audio from `inputRate` to `outputRate`, at
/// libsoxr's "high quality" recipe (SOXR_HQ, 20 bits: MPD's default for its soxr resampler),
/// with libsoxr's default TPDF dither on the S16 output. The single owner of its `soxr_t`,
/// deleted in `deinit`. Used by one thread at a time.
public final class Resampler {
    private let handle: soxr_t
    public let inputRate: Int
    public let outputRate: Int
    public let channels: Int

    /// Opens libsoxr on first use (see CLazyLibraries). The corresponding C function is soxr_create.
    public init(inputRate: Int, outputRate: Int, channels: Int) throws(SoxrError) {
        if let failure = jb_lazy_load(Int32(JB_LIB_SOXR)) {
            throw SoxrError(call: "dlopen", message: String(cString: failure))
        }
        var io = soxr_io_spec(SOXR_INT16_I, SOXR_INT16_I)
        var quality = soxr_quality_spec(jb_soxr_hq, 0)
        var error: soxr_error_t?
        let created = soxr_create(
            Double(inputRate), Double(outputRate), UInt32(channels), &error, &io, &quality, nil)
        guard let created, error == nil else {
            throw SoxrError(call: "soxr_create", message: error.map { String(cString: $0) } ?? "no resampler")
        }
        handle = created
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channels = channels
    }

    deinit { soxr_delete(handle) }

    /// Resamples up to `inputFrames` frames of `input` into `output` (room for
    /// `outputCapacity` frames); `input` nil flushes what libsoxr still holds (the end of
    /// the stream). Returns the frames consumed and produced. The corresponding C function
    /// is soxr_process.
    public func process(
        _ input: UnsafePointer<Int16>?, inputFrames: Int, into output: UnsafeMutablePointer<Int16>,
        outputCapacity: Int
    ) throws(SoxrError) -> (consumed: Int, produced: Int) {
        var consumed = 0
        var produced = 0
        let error = soxr_process(
            handle, input, input == nil ? 0 : inputFrames, &consumed, output, outputCapacity, &produced)
        if let error { throw SoxrError(call: "soxr_process", message: String(cString: error)) }
        return (consumed, produced)
    }

    /// Forgets the signal (after a seek); the configuration stays. The corresponding C
    /// function is soxr_clear.
    public func clear() throws(SoxrError) {
        if let error = soxr_clear(handle) { throw SoxrError(call: "soxr_clear", message: String(cString: error)) }
    }
}
