import JukeboxTestSupport
import Testing

/// The Linux input path on a real kernel: uinput devices in the guest deliver what the
/// gpio-keys overlay (EV_KEY), the rotary-encoder overlay with relative_axis (EV_REL REL_X,
/// ±1 a step) and a USB card reader (digits and Enter) deliver; the daemon reads them through
/// evdev as on a board.
extension BoardDeviceTests {
    /// KEY_PLAYPAUSE, KEY_NEXTSONG and the knob (REL_X) act as the buttons and the encoder.
    @Test func buttonsAndTheKnobAsInputDevices() throws {
        let rig = try Self.rig.get()
        let keys = try BoardInputDevice(board: rig.board, name: "gpio-keys", keys: [164, 163, 165, 28])
        let knob = try BoardInputDevice(board: rig.board, name: "rotary@5", relativeAxes: [0])
        var config = BoardRig.config(name: "evdev", startVolume: 50)
        config.extra = """

            [buttons]
            input_device = "\(keys.eventPath)"

            [encoder]
            input_device = "\(knob.eventPath)"
            """
        let daemon = try BoardJukebox(board: rig.board, uart: rig.uart, name: "evdev", config: config)
        #expect(daemon.log.contains("controls: reading input events from \(keys.eventPath)"), "\(daemon.log)")
        let queued = waitUntil(timeout: .seconds(30), pollingEvery: .milliseconds(50)) {
            (daemon.status()["playlistlength"] ?? "0") != "0"
        }
        #expect(queued)
        #expect(daemon.status()["state"] == "stop")

        try keys.tap(164)  // KEY_PLAYPAUSE: toggle
        #expect(
            waitUntil(timeout: .seconds(10), pollingEvery: .milliseconds(50)) { daemon.status()["state"] == "play" })
        let song = daemon.status()["song"]
        try keys.tap(163)  // KEY_NEXTSONG
        #expect(
            waitUntil(timeout: .seconds(10), pollingEvery: .milliseconds(50)) { daemon.status()["song"] != song },
            "\(daemon.log)")
        try knob.send([.relative(0, 1), .pause(20), .relative(0, 1), .pause(20), .relative(0, 1)])
        #expect(
            waitUntil(timeout: .seconds(10), pollingEvery: .milliseconds(50)) { daemon.status()["volume"] == "56" },
            "three clicks of 2 %: \(daemon.status()["volume"] ?? "")")
        try knob.send([.relative(0, -1)])
        #expect(waitUntil(timeout: .seconds(10), pollingEvery: .milliseconds(50)) { daemon.status()["volume"] == "54" })
        try keys.tap(164)
        #expect(
            waitUntil(timeout: .seconds(10), pollingEvery: .milliseconds(50)) { daemon.status()["state"] == "pause" })
        // gpio-keys reports a key once its debounce-interval is over: the daemon does not wait
        // again, so even a release right after the press (no GPIO line would pass its 5 ms
        // debounce) is a press.
        try keys.send([.key(164, pressed: true), .key(164, pressed: false)])
        #expect(
            waitUntil(timeout: .seconds(10), pollingEvery: .milliseconds(50)) { daemon.status()["state"] == "play" },
            "\(daemon.log)")
    }

    /// A USB card reader typing the card's number: the daemon grabs the device (EVIOCGRAB),
    /// plays what the card is assigned to, and another reader of the device gets nothing.
    @Test func aUSBCardReaderIsGrabbedAndPlaysItsCard() throws {
        let rig = try Self.rig.get()
        let reader = try BoardInputDevice(board: rig.board, name: "card reader", keys: BoardInputDevice.digitKeys)
        var config = BoardRig.config(name: "usbcard")
        config.extra = """

            [card_reader.usb]
            type = "keyboard"
            device = "\(reader.eventPath)"
            """
        let daemon = try BoardJukebox(board: rig.board, uart: rig.uart, name: "usbcard", config: config)
        #expect(daemon.command("card assign 0012345678 folder \"gapless\"").hasSuffix("OK\r\n"))
        // Another reader of the same device, as a console or a second program would be.
        let other = try rig.board.start("exec cat \(reader.eventPath)", log: "/tmp/other-reader.bin")
        defer { _ = try? rig.board.run("kill \(other)") }
        try reader.type("0012345678")
        let playing = waitUntil(timeout: .seconds(20), pollingEvery: .milliseconds(50)) {
            daemon.status()["state"] == "play"
        }
        #expect(playing, "\(daemon.log)")
        #expect(daemon.log.contains("card reader usb: card 0012345678"), "\(daemon.log)")
        #expect(daemon.status()["playlistlength"] == "3", "the gapless folder's three parts")
        let leaked = try rig.board.check("wc -c < /tmp/other-reader.bin")
        #expect(leaked.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "the other reader got \(leaked) bytes")
        #expect(!daemon.log.contains("cannot grab"), "\(daemon.log)")
    }
}
