import Glibc
import JukeboxCore
import JukeboxTestSupport
import LinuxSupport
import Logging
import Testing

@testable import JukeboxDevices

/// A logger that keeps its messages, for the "one line, not a flood" checks.
final class RecordingLog: LogHandler, @unchecked Sendable {
    private let lock = ConditionLock()
    private var storage: [String] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    var messages: [String] { lock.withLock { storage } }

    func log(event: LogEvent) { lock.withLock { storage.append(event.message.description) } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    var logger: Logger { Logger(label: "test") { _ in self } }
}

/// Runs card readers as the control loop does (poll on their fds and deadlines), with the
/// simulated PN532's master side of the pty in the same poll.
final class CardReaderLoop {
    let readers: CardReaders
    let simulator: PN532Simulator?
    private(set) var events: [CardEvent] = []

    init(_ configs: [CardReaderConfig], simulator: PN532Simulator? = nil, logger: Logger) {
        self.simulator = simulator
        readers = CardReaders(configs: configs, logger: logger, now: .now)
    }

    /// Turns the loop until `condition` holds or `timeout` passes; returns whether it held.
    @discardableResult
    func run(timeout: Duration = .seconds(5), until condition: (CardReaderLoop) -> Bool) -> Bool {
        let end = Instant.now.adding(milliseconds: timeout.components.seconds * 1000)
        while !condition(self) {
            let now = Instant.now
            guard now < end else { return false }
            var fds = readers.fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if let simulator { fds.append(pollfd(fd: simulator.fd, events: Int16(POLLIN), revents: 0)) }
            var wait: Int64 = 20
            if let deadline = readers.nextDeadline { wait = min(wait, max(0, deadline.milliseconds(since: now) + 1)) }
            _ = poll(&fds, nfds_t(fds.count), Int32(wait))
            simulator?.pump()
            for entry in fds where entry.revents != 0 && readers.owns(entry.fd) {
                events += readers.read(fd: entry.fd, now: .now).map(\.event)
            }
            events += readers.advance(to: .now).map(\.event)
        }
        return true
    }

    /// Turns the loop for `milliseconds` whatever happens.
    func run(milliseconds: Int64) {
        let end = Instant.now.adding(milliseconds: milliseconds)
        run(timeout: .seconds(milliseconds / 1000 + 2)) { _ in Instant.now >= end }
    }
}

extension Instant {
    static var now: Instant { Instant(nanoseconds: Int64(MonotonicClock.nanoseconds())) }
}

/// The PN532 adapter on a pty against a PN532 simulator: the real serial setup, frames,
/// ACKs, checksums, the wake-up, and a reader that stops answering and comes back.
@Suite(.serialized) struct PN532SerialReaderTests {
    static let ntag: [UInt8] = [0x04, 0x5A, 0x3C, 0x12, 0xB2, 0x6F, 0x80]
    static let classic: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF]

    static func config(_ path: String) -> CardReaderConfig {
        var config = CardReaderConfig(name: "lid")
        config.kind = .pn532
        config.device = path
        config.pollMs = 50
        config.timeoutMs = 100
        return config
    }

    @Test func readsACardAndSeesItGo() throws {
        let simulator = try PN532Simulator()
        let loop = CardReaderLoop(
            [Self.config(simulator.slavePath)], simulator: simulator, logger: RecordingLog().logger)
        loop.run(milliseconds: 200)
        #expect(loop.events == [])
        simulator.chip.card = Self.ntag
        #expect(loop.run { $0.events == [.read("045A3C12B26F80")] })
        simulator.chip.card = nil
        #expect(loop.run { $0.events.last == .removed })
        simulator.chip.card = Self.classic
        #expect(loop.run { $0.events.last == .read("DEADBEEF") })
        #expect(simulator.chip.wakeUps == 1)
        #expect(Array(simulator.chip.commands.prefix(3)) == [0x14, 0x32, 0x4A])
        #expect(Set(simulator.chip.commands.dropFirst(2)) == [0x4A])
    }

    /// From a card put on (or taken off) to its event: at most a poll interval and one
    /// exchange on the line (here 50 ms polls).
    @Test func aCardIsSeenWithinAPollAndAnExchange() throws {
        let simulator = try PN532Simulator()
        let loop = CardReaderLoop(
            [Self.config(simulator.slavePath)], simulator: simulator, logger: RecordingLog().logger)
        loop.run(milliseconds: 100)
        var delays: [Int64] = []
        for round in 0..<20 {
            let placed = Instant.now
            simulator.chip.card = round % 2 == 0 ? Self.classic : nil
            let count = loop.events.count
            #expect(loop.run { $0.events.count > count })
            delays.append(Instant.now.milliseconds(since: placed))
            loop.run(milliseconds: Int64(round * 7 % 50))  // put on at a different phase of the poll
        }
        delays.sort()
        print(
            "PN532 on a pty, poll_ms 50: card on/off -> event p50 \(delays[10]) ms, p95 \(delays[18]) ms, max \(delays[19]) ms"
        )
        #expect(delays[18] <= 150, "\(delays)")
    }

    @Test func garbageBetweenFramesAndABadChecksum() throws {
        let simulator = try PN532Simulator()
        // Line noise with start codes in it, before every ACK and every answer.
        simulator.chip.garbage = [0x13, 0x00, 0xFF, 0x07, 0x55, 0x00, 0xFF, 0x00]
        simulator.chip.card = Self.classic
        let log = RecordingLog()
        let loop = CardReaderLoop([Self.config(simulator.slavePath)], simulator: simulator, logger: log.logger)
        #expect(loop.run { $0.events == [.read("DEADBEEF")] })
        simulator.chip.corruptNextAnswer = true
        let polls = simulator.chip.commands.count
        #expect(loop.run { _ in simulator.chip.commands.count >= polls + 3 })
        #expect(simulator.chip.nacks == 1)
        #expect(loop.events == [.read("DEADBEEF")], "the card was seen through the NACK and the repeat")
        #expect(log.messages == [])
    }

    @Test func aReaderThatStopsAnsweringIsRestartedAndLoggedOnce() throws {
        let simulator = try PN532Simulator()
        simulator.chip.card = Self.ntag
        let log = RecordingLog()
        let loop = CardReaderLoop([Self.config(simulator.slavePath)], simulator: simulator, logger: log.logger)
        #expect(loop.run { $0.events == [.read("045A3C12B26F80")] })
        simulator.chip.answering = false
        #expect(loop.run { $0.events.last == .removed })
        loop.run(milliseconds: 2000)
        #expect(
            log.messages == ["card reader lid: not answering (no ACK within 100 ms); trying again, every 8 s at most"])
        // Power back: asleep until the next restart's wake-up.
        simulator.chip.powerCycle()
        simulator.chip.answering = true
        #expect(loop.run { $0.events.last == .read("045A3C12B26F80") })
        #expect(simulator.chip.wakeUps == 2)
        #expect(log.messages.count == 2)
        #expect(log.messages.last?.hasPrefix("card reader lid: answering again after") == true)
    }

    @Test func aMissingDeviceIsReportedOnceAndOpenedWhenItAppears() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("pn532")
        let log = RecordingLog()
        let simulator = try PN532Simulator()
        simulator.chip.card = Self.classic
        let loop = CardReaderLoop([Self.config(path)], simulator: simulator, logger: log.logger)
        loop.run(milliseconds: 1500)
        #expect(log.messages.count == 1)
        #expect(log.messages.first?.hasPrefix("card reader lid: \(path)") == true)
        #expect(loop.events == [])
        // The adapter is plugged in.
        #expect(symlink(simulator.slavePath, path) == 0)
        #expect(loop.run { $0.events == [.read("DEADBEEF")] })
        #expect(log.messages.count == 2)
        #expect(log.messages.last == "card reader lid: \(path) is back")
    }
}

/// The MFRC522 driver against a register-level simulator behind `SPITransfer`, the
/// interface the spidev adapter implements.
@Suite struct MFRC522ReaderTests {
    typealias Card = MFRC522Simulator.Card

    /// Polls `polls` times, 100 ms apart on a manual clock.
    static func poll(
        _ simulator: MFRC522Simulator, session: inout MFRC522Session, polls: Int, from start: Int64 = 0,
        before: (Int) -> Void = { _ in }
    ) -> [MFRC522Session.Action] {
        var actions: [MFRC522Session.Action] = []
        let registers = MFRC522Registers(bus: simulator)
        for index in 0..<polls {
            before(index)
            actions += session.tick(now: .milliseconds(start + Int64(index) * 100), registers: registers)
        }
        return actions
    }

    static func read(_ cards: [Card]) -> [MFRC522Session.Action] {
        let simulator = MFRC522Simulator()
        simulator.cards = cards
        var session = MFRC522Session(pollMs: 100)
        return poll(simulator, session: &session, polls: 3)
    }

    @Test func theCRCIsISO14443s() {
        // HLTA's CRC_A, as every trace shows it.
        #expect(MFRC522Simulator.crcA([0x50, 0x00]) == [0x57, 0xCD])
    }

    @Test(
        arguments: [
            ([0xDE, 0xAD, 0xBE, 0xEF], "DEADBEEF"),
            ([0x04, 0x5A, 0x3C, 0x12, 0xB2, 0x6F, 0x80], "045A3C12B26F80"),
            ([0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99], "04112233445566778899"),
        ] as [([UInt8], String)])
    func readsUIDsOfEveryLength(uid: [UInt8], id: String) {
        #expect(Self.read([Card(uid: uid)]) == [.event(.read(id))])
    }

    @Test func collisionsAreResolvedTheSameWayEveryPoll() {
        // Two 4-byte cards differing in bit 0 of their third byte: the 1 branch wins.
        #expect(
            Self.read([Card(uid: [0x12, 0x34, 0x56, 0x78]), Card(uid: [0x12, 0x34, 0x57, 0x78])])
                == [.event(.read("12345778"))])
        // A 7-byte NTAG (CT 0x88 first) and a 4-byte card, and three cards colliding at several bits.
        #expect(
            Self.read([Card(uid: [0x04, 0x5A, 0x3C, 0x12, 0xB2, 0x6F, 0x80]), Card(uid: [0x08, 0x01, 0x02, 0x03])])
                == [.event(.read("045A3C12B26F80"))])
        #expect(
            Self.read([
                Card(uid: [0x10, 0x20, 0x30, 0x40]), Card(uid: [0x10, 0x21, 0x30, 0x40]),
                Card(uid: [0x10, 0x21, 0x30, 0xC0]),
            ]) == [.event(.read("102130C0"))])
    }

    @Test func theCollisionWasReallyResolvedBitByBit() {
        let simulator = MFRC522Simulator()
        simulator.cards = [Card(uid: [0x12, 0x34, 0x56, 0x78]), Card(uid: [0x12, 0x34, 0x57, 0x78])]
        var session = MFRC522Session(pollMs: 100)
        _ = Self.poll(simulator, session: &session, polls: 1)
        // ANTICOLLISION CL1 with NVB 0x20, then with the 17 known bits (NVB 0x41), then SELECT.
        let selects = simulator.sentFrames.filter { $0.first == 0x93 }.map { $0[1] }
        #expect(selects == [0x20, 0x41, 0x70])
    }

    @Test func aCardThatFlickersIsReportedPerEdge() {
        let simulator = MFRC522Simulator()
        let card = Card(uid: [0xDE, 0xAD, 0xBE, 0xEF])
        simulator.cards = [card]
        var session = MFRC522Session(pollMs: 100)
        // In, in, out for one poll, in, in, out.
        let presence = [true, true, false, true, true, false]
        let actions = Self.poll(simulator, session: &session, polls: presence.count) { card.present = presence[$0] }
        #expect(
            actions == [
                .event(.read("DEADBEEF")), .event(.removed), .event(.read("DEADBEEF")), .event(.removed),
            ])
    }

    @Test func aWrongBCCIsNoCard() {
        let card = Card(uid: [0xDE, 0xAD, 0xBE, 0xEF])
        card.wrongBCC = true
        #expect(Self.read([card]) == [])
    }

    @Test func aChipThatStopsAnsweringIsSetUpAgainWithOneLogLine() {
        let simulator = MFRC522Simulator()
        simulator.cards = [Card(uid: [0xDE, 0xAD, 0xBE, 0xEF])]
        var session = MFRC522Session(pollMs: 100)
        var actions = Self.poll(simulator, session: &session, polls: 2)
        simulator.answering = false
        // Five seconds of a dead chip, polled every 10 ms: retries follow the backoff.
        let registers = MFRC522Registers(bus: simulator)
        var now = Instant.milliseconds(200)
        var before = simulator.transfers
        var attempts = 0
        while now < .milliseconds(5200) {
            actions += session.tick(now: now, registers: registers)
            if simulator.transfers != before { attempts += 1 }
            before = simulator.transfers
            now = now.adding(milliseconds: 10)
        }
        #expect(attempts == 5)  // at 0.2, 0.45, 0.95, 1.95 and 3.95 s
        simulator.answering = true
        actions += session.tick(now: session.deadline, registers: registers)
        #expect(
            actions == [
                .event(.read("DEADBEEF")),
                .log("not answering (its version register reads 0xFF); trying again, every 8 s at most"),
                .event(.removed),
                .log("answering again after 5 failed attempts"),
                .event(.read("DEADBEEF")),
            ])
    }
}

/// The keyboard reader: digits from evdev, grabbed.
@Suite(.serialized) struct KeyboardCardReaderTests {
    static let digitKeys: [Int32] = Array(2...11) + [28]

    static func config(_ path: String) -> CardReaderConfig {
        var config = CardReaderConfig(name: "usb")
        config.kind = .keyboard
        config.device = path
        return config
    }

    /// `struct input_event` records for `keys` typed and Enter.
    static func records(typing digits: String) -> [UInt8] {
        func record(_ type: UInt16, _ code: UInt16, _ value: Int32) -> [UInt8] {
            var tv = timeval(tv_sec: 1, tv_usec: 0)
            var bytes = withUnsafeBytes(of: &tv) { Array($0) }
            withUnsafeBytes(of: type) { bytes += $0 }
            withUnsafeBytes(of: code) { bytes += $0 }
            withUnsafeBytes(of: value) { bytes += $0 }
            return bytes
        }
        var bytes: [UInt8] = []
        for key in digits.map({ $0 == "0" ? UInt16(11) : UInt16(String($0))! + 1 }) + [28] {
            bytes += record(1, key, 1) + record(0, 0, 0) + record(1, key, 0) + record(0, 0, 0)
        }
        return bytes
    }

    /// The read path on a FIFO of kernel records (the grab fails there and is logged once):
    /// runs wherever the tests run.
    @Test func recordsFromAFIFO() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path + "/event-kbd"
        try FileSystem.makeFIFO(path)
        let writer = try FileDescriptor(path: path, flags: O_RDWR | O_NONBLOCK)
        let log = RecordingLog()
        let loop = CardReaderLoop([Self.config(path)], logger: log.logger)
        // Split mid-record, as a read may.
        let bytes = Self.records(typing: "0012345678") + Self.records(typing: "0087654321")
        try writer.writeAll(Array(bytes.prefix(100)))
        loop.run(milliseconds: 50)
        try writer.writeAll(Array(bytes.dropFirst(100)))
        #expect(loop.run { $0.events == [.read("0012345678"), .read("0087654321")] })
        #expect(log.messages.count == 1)
        #expect(log.messages.first?.contains("cannot grab") == true)
    }

    /// Through a real input device: the reader grabs it, so a second reader of the same
    /// device (a console, X) gets none of the digits.
    @Test(.enabled(if: VirtualInputDevice.isAvailable, "needs a writable /dev/uinput"))
    func aUInputDeviceIsGrabbed() throws {
        let device = try VirtualInputDevice(name: "jukebox test card reader", keys: Self.digitKeys)
        let other = try FileDescriptor(path: device.eventPath, flags: O_RDONLY | O_NONBLOCK)
        let log = RecordingLog()
        let loop = CardReaderLoop([Self.config(device.eventPath)], logger: log.logger)
        for digit in "0012345678" {
            let key: Int32 = digit == "0" ? 11 : Int32(String(digit))! + 1
            try device.send(type: 1, code: key, value: 1)
            try device.send(type: 1, code: key, value: 0)
        }
        try device.send(type: 1, code: 28, value: 1)
        try device.send(type: 1, code: 28, value: 0)
        #expect(loop.run { $0.events == [.read("0012345678")] })
        #expect(log.messages == [])
        #expect(try other.readIfReady(upTo: 4096) == nil, "the grab keeps the digits from other readers")
    }
}

/// An I2C bus with a PN532 on it: a read gives the status byte (0x01 when an answer is
/// ready, else 0x00) and then the next frame the chip queued, padded to the length read.
final class SimulatedPN532OnI2C: I2CTransfer {
    let chip = PN532Responder(asleep: false)
    private var queued: [[UInt8]] = []

    func read(count: Int) throws -> [UInt8] {
        guard !queued.isEmpty else { return [UInt8](repeating: 0, count: count) }
        let frame = [0x01] + queued.removeFirst()
        return Array((frame + [UInt8](repeating: 0, count: max(0, count - frame.count))).prefix(count))
    }

    func write(_ bytes: [UInt8]) throws { queued += chip.receive(bytes) }
}

/// The PN532 I2C adapter against the simulated bus, on a manual clock.
@Suite struct PN532I2CReaderTests {
    static func run(_ reader: PN532I2CReader, from start: Int64, to end: Int64) -> [CardEvent] {
        var events: [CardEvent] = []
        var now = Instant.milliseconds(start)
        while now < .milliseconds(end) {
            events += reader.advance(to: now)
            now = now.adding(milliseconds: 1)
        }
        return events
    }

    @Test func pollsTheStatusByteAndReadsTheCard() throws {
        let bus = SimulatedPN532OnI2C()
        bus.chip.card = [0x04, 0x5A, 0x3C, 0x12, 0xB2, 0x6F, 0x80]
        var config = CardReaderConfig(name: "lid")
        config.kind = .pn532
        config.bus = .i2c
        config.device = "/dev/i2c-1"
        let log = RecordingLog()
        let reader = PN532I2CReader(config: config, logger: log.logger, now: .zero) { bus }
        #expect(Self.run(reader, from: 0, to: 50) == [.read("045A3C12B26F80")])
        #expect(bus.chip.wakeUps == 0)
        #expect(Array(bus.chip.commands.prefix(3)) == [0x14, 0x32, 0x4A])
        bus.chip.card = nil
        #expect(Self.run(reader, from: 50, to: 250) == [.removed])
        // A chip that stops answering (NAKs, here: never ready) is logged once.
        bus.chip.answering = false
        _ = Self.run(reader, from: 250, to: 3000)
        #expect(
            log.messages == ["card reader lid: not answering (no ACK within 100 ms); trying again, every 8 s at most"])
        bus.chip.answering = true
        bus.chip.card = [0xDE, 0xAD, 0xBE, 0xEF]
        #expect(Self.run(reader, from: 3000, to: 8000) == [.read("DEADBEEF")])
        #expect(log.messages.count == 2)
    }
}
