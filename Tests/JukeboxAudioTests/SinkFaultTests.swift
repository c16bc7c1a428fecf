import ALSA
import Foundation
import Glibc
import JukeboxAudio
import JukeboxTestSupport
import Testing

/// A sink that passes everything to the real ALSA sink and injects the faults a driver
/// reports, at given write calls: an underrun, a suspend whose resume answers -EAGAIN for a
/// while, a device that goes away (-ENODEV or -EIO on every call and on the next opens) and
/// comes back, interrupted writes. An injected fault does not touch the real device, so what
/// reaches it shows what the pipeline's recovery made of the fault.
final class FaultSink: AudioSink, @unchecked Sendable {
    enum Fault {
        /// -EPIPE, and again on every write until prepared.
        case underrun
        /// -ESTRPIPE until resumed or prepared; resume answers -EAGAIN `busyResumes` times first.
        case suspend(busyResumes: Int)
        /// `code` on every call, and the next `failedOpens` opens fail (-ENODEV, then -EIO).
        case gone(code: Int32, failedOpens: Int)
        /// -EINTR on this write and the next `times` − 1.
        case interrupted(times: Int)
    }

    private enum Condition {
        case working
        case xrun
        case suspended(busyResumes: Int)
        case gone(code: Int32, failedOpens: Int)
    }

    private var real = ALSASink()
    private var isOpen = false
    private let schedule: [Int: Fault]
    private var writes = 0
    private var interruptsLeft = 0
    private var condition = Condition.working

    /// `schedule`: the fault injected at the n-th write call (counted from 1).
    init(_ schedule: [Int: Fault]) { self.schedule = schedule }

    private func fail(_ code: Int32, _ call: String) -> ALSAError { ALSAError(code: code, call: call, device: "fault") }

    private func check(_ call: String) throws(ALSAError) {
        if case .gone(let code, _) = condition { throw fail(code, call) }
    }

    func open(_ request: PCMRequest) throws(ALSAError) -> SinkGrant {
        if case .gone(let code, let failedOpens) = condition {
            if failedOpens > 0 {
                condition = .gone(code: code, failedOpens: failedOpens - 1)
                throw fail(failedOpens % 2 == 0 ? ENODEV : EIO, "snd_pcm_open")
            }
            condition = .working
        }
        let grant = try real.open(request)
        isOpen = true
        return grant
    }

    func close() {
        if isOpen { real.close() }
        isOpen = false
    }

    func write(_ samples: UnsafePointer<Int16>, frames: Int) throws(ALSAError) -> Int {
        try faulting { () throws(ALSAError) in try real.write(samples, frames: frames) }
    }

    func write(wide samples: UnsafePointer<Int32>, frames: Int) throws(ALSAError) -> Int {
        try faulting { () throws(ALSAError) in try real.write(wide: samples, frames: frames) }
    }

    /// A write that meets the scheduled fault, else `write`.
    private func faulting(_ write: () throws(ALSAError) -> Int) throws(ALSAError) -> Int {
        writes += 1
        switch schedule[writes] {
        case .underrun: condition = .xrun
        case .suspend(let busy): condition = .suspended(busyResumes: busy)
        case .gone(let code, let failedOpens): condition = .gone(code: code, failedOpens: failedOpens)
        case .interrupted(let times): interruptsLeft = times
        case nil: break
        }
        if interruptsLeft > 0 {
            interruptsLeft -= 1
            throw fail(EINTR, "snd_pcm_writei")
        }
        switch condition {
        case .working: return try write()
        case .xrun: throw fail(EPIPE, "snd_pcm_writei")
        case .suspended: throw fail(ESTRPIPE, "snd_pcm_writei")
        case .gone(let code, _): throw fail(code, "snd_pcm_writei")
        }
    }

    func delay() throws(ALSAError) -> Int {
        try check("snd_pcm_delay")
        return try real.delay()
    }

    func rewindable() -> Int {
        if case .gone = condition { return 0 }
        return real.rewindable()
    }

    func rewind(_ frames: Int) throws(ALSAError) -> Int {
        try check("snd_pcm_rewind")
        return try real.rewind(frames)
    }

    func drop() throws(ALSAError) {
        try check("snd_pcm_drop")
        try real.drop()
    }

    func drain() throws(ALSAError) {
        try check("snd_pcm_drain")
        try real.drain()
    }

    /// After an injected underrun or suspend the device played out what it held: preparing
    /// it again leaves the real one alone.
    func prepare() throws(ALSAError) {
        switch condition {
        case .working: try real.prepare()
        case .xrun, .suspended: condition = .working
        case .gone(let code, _): throw fail(code, "snd_pcm_prepare")
        }
    }

    func resume() throws(ALSAError) {
        switch condition {
        case .suspended(let busy) where busy > 0:
            condition = .suspended(busyResumes: busy - 1)
            throw fail(EAGAIN, "snd_pcm_resume")
        case .suspended: condition = .working
        case .gone(let code, _): throw fail(code, "snd_pcm_resume")
        case .working, .xrun: throw fail(EBADFD, "snd_pcm_resume")
        }
    }
}

/// Each fault is recovered and counted, and the samples that reach the device are the
/// reference decode: nothing lost or repeated beyond what the fault itself cost.
@Suite struct SinkFaultTests {
    static let file = Fixtures.media("gapless/part1.mp3")

    struct Played {
        var samples: [Int16]
        var status: PipelineStatus
        var events: [PipelineEvent]
        /// Statuses seen while the device was gone.
        var whileGone: [PipelineStatus]
        /// Byte offsets at which the device was opened (see `PacedFifoSink.segmentOffsets`).
        var opens: [Int]
    }

    /// Plays `file` through a `FaultSink` over a virtual DAC (8x real time) to the end.
    func play(_ schedule: [Int: FaultSink.Fault]) throws -> Played {
        let dac = try PacedFifoSink(bytesPerSecond: 176_400, speed: 8)
        let h = Harness(device: dac.alsaDevice, sink: FaultSink(schedule))
        h.pipeline.play(PlaybackItem(token: 1, path: Self.file), fromMs: 0)
        var whileGone: [PipelineStatus] = []
        let ended = h.pump(timeoutSeconds: 10) { events in
            let status = h.pipeline.status()
            if status.error != nil { whileGone.append(status) }
            return events.contains(.endOfStream)
        }
        #expect(ended)
        let status = h.pipeline.status()
        // The end of the stream was written: wait until the DAC played what the pipe holds.
        dac.waitForBytes(try referenceDecode([Self.file]).count * 2, timeoutSeconds: 3)
        h.pipeline.shutdown()
        dac.stop()
        return Played(
            samples: dac.samples, status: status, events: h.events, whileGone: whileGone, opens: dac.segmentOffsets)
    }

    /// Where `got` leaves `reference` and by how many frames it skips ahead (negative: repeats)
    /// from there to the end; nil when it does not join the reference again within `limit` frames.
    func splice(_ got: [Int16], _ reference: [Int16], limit: Int) -> (at: Int, skipped: Int)? {
        let at = firstDifference(got, reference)
        if got.count == reference.count && at == got.count { return (at / 2, 0) }
        for skipped in -limit...limit where at + skipped * 2 >= 0 && reference.count - got.count == skipped * 2 {
            if got[at...].elementsEqual(reference[(at + skipped * 2)...]) { return (at / 2, skipped) }
        }
        return nil
    }

    /// The index of the first sample where `a` and `b` differ (the shorter length if none).
    func firstDifference(_ a: [Int16], _ b: [Int16]) -> Int {
        (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
    }

    @discardableResult
    func expectReference(_ played: Played, limit: Int = 0) throws -> (at: Int, skipped: Int)? {
        let reference = try referenceDecode([Self.file])
        let joined = splice(played.samples, reference, limit: limit)
        #expect(
            joined != nil,
            "\(played.samples.count) samples vs \(reference.count); first difference at frame \(firstDifference(played.samples, reference) / 2)"
        )
        #expect(played.events == [.started(1), .finished(1), .endOfStream])
        return joined
    }

    @Test func anUnderrunIsPreparedAndCounted() throws {
        let played = try play([60: .underrun])
        try expectReference(played)
        #expect(played.status.underruns == 1)
        #expect(played.status.deviceLosses == 0 && played.status.deviceOpens == 1)
    }

    @Test func aSuspendIsResumedOnceTheDriverIsAwakeAndCounted() throws {
        let played = try play([60: .suspend(busyResumes: 5)])
        try expectReference(played)
        #expect(played.status.suspends == 1)
        #expect(played.status.underruns == 0 && played.status.deviceLosses == 0 && played.status.deviceOpens == 1)
    }

    @Test func interruptedWritesAreRetried() throws {
        let played = try play([40: .interrupted(times: 1), 80: .interrupted(times: 3)])
        try expectReference(played)
        #expect(played.status.underruns == 0 && played.status.suspends == 0)
        #expect(played.status.deviceLosses == 0 && played.status.deviceOpens == 1)
    }

    @Test(arguments: [ENODEV, EIO])
    func aDeviceThatGoesAwayIsReopenedAndPlaysOnWhereItStopped(code: Int32) throws {
        let played = try play([60: .gone(code: code, failedOpens: 3)])
        // The virtual DAC's ALSA plugin hands on all it was given before it closes (its delay
        // is 0), so the fault costs nothing here: playback must go on at the very next frame.
        let joined = try expectReference(played)
        #expect(played.status.deviceLosses == 1)
        #expect(played.status.reopenAttempts == 4, "3 failed opens, then the one that worked")
        #expect(played.status.deviceOpens == 2 && played.opens.count == 2)
        #expect(played.status.error == nil)
        // While it was gone the error was reported and the position stood still, at the frame
        // where the first device stopped.
        let gone = played.whileGone
        #expect(gone.first?.error?.contains("fault: snd_pcm_") == true, "\(gone.first?.error ?? "nil")")
        #expect(Set(gone.map(\.positionFrames)).count == 1, "position moved while the device was gone")
        let cut = Int64((played.opens.last ?? 0) / 4)
        let stoppedAt = gone.first?.positionFrames ?? -1
        print(
            "device gone (\(code)): cut at frame \(cut), position while gone \(stoppedAt), skipped \(joined?.skipped ?? 0)"
        )
        #expect(abs(stoppedAt - cut) <= Int64(played.status.periodFrames))
    }
}
