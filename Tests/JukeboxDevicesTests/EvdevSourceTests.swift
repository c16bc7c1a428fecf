import Glibc
import JukeboxCore
import Testing

@testable import JukeboxDevices

/// Decoding the kernel's `struct input_event` records of `gpio-keys` and `rotary-encoder`.
@Suite struct EvdevSourceTests {
    /// Keys come as presses and releases the kernel already debounced (no second wait).
    @Test func inputEventsFromTheKernelDrivers() {
        // struct input_event records: EV_KEY KEY_NEXTSONG down/up, an autorepeat, EV_REL REL_X -2, EV_SYN.
        func record(_ type: UInt16, _ code: UInt16, _ value: Int32, micros: Int) -> [UInt8] {
            var tv = timeval(tv_sec: 100, tv_usec: micros)
            var bytes = withUnsafeBytes(of: &tv) { Array($0) }
            withUnsafeBytes(of: type) { bytes += $0 }
            withUnsafeBytes(of: code) { bytes += $0 }
            withUnsafeBytes(of: value) { bytes += $0 }
            return bytes
        }
        var stream = record(1, 163, 1, micros: 1000) + record(0, 0, 0, micros: 1000) + record(1, 163, 2, micros: 2000)
        stream += record(1, 163, 0, micros: 3000) + record(2, 0, -2, micros: 4000)
        stream += record(1, 115, 1, micros: 5000) + Array(record(1, 164, 1, micros: 6000).prefix(5))
        let now = Instant.milliseconds(50_000)
        let readings = EvdevSource.decode(&stream, now: now, realtimeNow: 100_010_000_000)
        #expect(
            readings == [
                .key("next", pressed: true, at: Instant(nanoseconds: now.nanoseconds - 9_000_000)),
                .key("next", pressed: false, at: Instant(nanoseconds: now.nanoseconds - 7_000_000)),
                .detents(-2, at: Instant(nanoseconds: now.nanoseconds - 6_000_000)),
                .detents(1, at: Instant(nanoseconds: now.nanoseconds - 5_000_000)),
            ])
        #expect(stream.count == 5, "a partial record waits for the rest")
    }
}
