import CLazyLibraries
import CSonic

/// A failed libsonic call: the call and what went wrong (libsonic has no error texts; its
/// only failure is an allocation).
public struct SonicError: Error, Equatable, CustomStringConvertible, Sendable {
    public var call: String
    public var message: String

    public var description: String { "\(call) failed: \(message)" }
}

/// One libsonic stream: interleaved S16 audio played `speed` times as fast with its pitch
/// kept (PICOLA-style pitch-period overlap). The single owner of its `sonicStream`, destroyed
/// in `deinit`. Used by one thread at a time.
public final class TimeStretcher {
    private let handle: sonicStream
    public let rate: Int
    public let channels: Int
    public let speed: Double

    /// Opens libsonic on first use (see CLazyLibraries). The corresponding C functions are
    /// sonicCreateStream and sonicSetSpeed.
    public init(rate: Int, channels: Int, speed: Double) throws(SonicError) {
        if let failure = jb_lazy_load(Int32(JB_LIB_SONIC)) {
            throw SonicError(call: "dlopen", message: String(cString: failure))
        }
        guard let created = sonicCreateStream(Int32(rate), Int32(channels)) else {
            throw SonicError(call: "sonicCreateStream", message: "out of memory")
        }
        sonicSetSpeed(created, Float(speed))
        handle = created
        self.rate = rate
        self.channels = channels
        self.speed = speed
    }

    deinit { sonicDestroyStream(handle) }

    /// Hands libsonic `frames` frames of `input` (it keeps what it cannot stretch yet). The
    /// corresponding C function is sonicWriteShortToStream.
    public func write(_ input: UnsafeMutablePointer<Int16>, frames: Int) throws(SonicError) {
        if sonicWriteShortToStream(handle, input, Int32(frames)) == 0 {
            throw SonicError(call: "sonicWriteShortToStream", message: "out of memory")
        }
    }

    /// Moves up to `capacity` stretched frames into `output`; returns how many. The
    /// corresponding C function is sonicReadShortFromStream.
    public func read(into output: UnsafeMutablePointer<Int16>, capacity: Int) -> Int {
        Int(sonicReadShortFromStream(handle, output, Int32(capacity)))
    }

    /// Stretches what libsonic still holds (the end of the stream), to be read. The
    /// corresponding C function is sonicFlushStream.
    public func flush() throws(SonicError) {
        if sonicFlushStream(handle) == 0 { throw SonicError(call: "sonicFlushStream", message: "out of memory") }
    }
}
