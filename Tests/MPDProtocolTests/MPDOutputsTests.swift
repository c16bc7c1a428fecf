import JukeboxCore
import Testing

@testable import MPDProtocol

/// `outputs` and the switches with an extra output (the Snapcast FIFO, number 1).
@Suite struct MPDOutputsTests {
    static func world() -> MPDWorld {
        var world = MPDProtocolTests.world()
        world.host.outputName = "default"
        world.host.extraOutputs = [MPDOutput(name: "Snapcast", plugin: "fifo", enabled: true)]
        return world
    }

    @Test func listsEveryOutputInOrder() {
        var world = Self.world()
        #expect(
            MPDProtocolTests.run("outputs", world: &world)
                == "outputid: 0\noutputname: default\nplugin: alsa\noutputenabled: 1\n"
                + "outputid: 1\noutputname: Snapcast\nplugin: fifo\noutputenabled: 1\nOK\n")
    }

    @Test func switchesOnlyTheOutputNamed() {
        var world = Self.world()
        #expect(MPDProtocolTests.run("disableoutput 1", world: &world) == "OK\n")
        #expect(world.host.extraOutputs[0].enabled == false)
        #expect(world.host.outputEnabled)
        #expect(world.observer.isMarked(.output))
        #expect(MPDProtocolTests.run("toggleoutput 1", world: &world) == "OK\n")
        #expect(world.host.extraOutputs[0].enabled)
        #expect(MPDProtocolTests.run("toggleoutput 0", world: &world) == "OK\n")
        #expect(!world.host.outputEnabled && world.host.extraOutputs[0].enabled)
    }

    @Test func anOutputPastTheLastIsNoSuchOutput() {
        var world = Self.world()
        #expect(
            MPDProtocolTests.run("enableoutput 2", world: &world) == "ACK [50@0] {enableoutput} No such audio output\n")
        #expect(
            MPDProtocolTests.run("outputset 1 x y", world: &world) == "ACK [2@0] {outputset} Unsupported attribute\n")
    }
}
