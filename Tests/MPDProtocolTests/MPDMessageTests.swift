import JukeboxCore
import Testing

@testable import MPDProtocol

/// Client-to-client messages between sessions of one world, and MixRamp's numbers as MPD
/// writes them (the differential against MPD is MPDMessageDifferentialTests).
@Suite struct MPDMessageTests {
    /// Only the subscriber's idle hears `message`; a session that leaves takes its channels.
    @Test func onlySubscribersHearMessages() {
        var world = MPDProtocolTests.world()
        var (listener, sender, bystander) = (MPDSession(), MPDSession(), MPDSession())
        #expect(listener.handle(line: "subscribe box", world: &world).text == "OK\n")
        #expect(sender.handle(line: "channels", world: &world).text == "channel: box\nOK\n")
        _ = world.observer.changes(world.machine)
        _ = listener.handle(line: "idle", world: &world)
        _ = bystander.handle(line: "idle", world: &world)
        #expect(sender.handle(line: "sendmessage box hi", world: &world).text == "OK\n")
        let changes = world.observer.changes(world.machine)
        #expect(listener.notify(changes) == "changed: message\nOK\n")
        #expect(bystander.notify(changes) == nil)
        #expect(listener.handle(line: "readmessages", world: &world).text == "channel: box\nmessage: hi\nOK\n")
        #expect(listener.handle(line: "readmessages", world: &world).text == "OK\n")
        listener.leave()
        #expect(sender.handle(line: "channels", world: &world).text == "OK\n")
        #expect(
            sender.handle(line: "sendmessage box hi", world: &world).text
                == "ACK [50@0] {sendmessage} nobody is subscribed to this channel\n")
    }

    /// A full inbox (64) drops what comes after for that client.
    @Test func anInboxHoldsSixtyFourMessages() {
        var world = MPDProtocolTests.world()
        var listener = MPDSession()
        _ = listener.handle(line: "subscribe box", world: &world)
        var sender = MPDSession()
        for n in 1...70 { _ = sender.handle(line: "sendmessage box m\(n)", world: &world) }
        let read = listener.handle(line: "readmessages", world: &world).text
        #expect(read.split(separator: "\n").filter { $0.hasPrefix("message: ") }.count == 64)
        #expect(read.contains("message: m64\n") && !read.contains("message: m65\n"))
    }

    @Test func mixRampNumbersAsMPDWritesThem() {
        let cases: [(Float, String)] = [
            (0, "0"), (-17, "-17"), (-17.25, "-17.25"), (0.1, "0.1"), (100, "100"), (1e10, "10000000000"),
            (1e-6, "1e-06"), (123_456_792, "123456790"), (1e20, "1e+20"), (0.0001, "0.0001"), (.infinity, "inf"),
            (-.infinity, "-inf"),
        ]
        for (value, text) in cases { #expect(MixRamp.shortest(value) == text, "\(value)") }
        #expect(MixRamp.shortest(Double(Float(3.14159265))) == "3.1415927410125732")
    }
}
