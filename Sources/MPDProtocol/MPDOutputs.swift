import JukeboxCore

// The audio outputs as MPD 0.23 shows them: number 0, the ALSA device, then the extra ones
// (`host.extraOutputs`, the Snapcast FIFO). Disabling output 0 silences the box while
// playback (and its clock) goes on; disabling an extra one stops feeding it. The daemon
// applies and saves the switches after the request.

extension MPDCommands {
    static func outputs(_ w: inout MPDWorld, _ c: inout Call) {
        c.response.add("outputid", 0)
        c.response.add("outputname", w.host.outputName)
        c.response.add("plugin", "alsa")
        c.response.add("outputenabled", w.host.outputEnabled ? 1 : 0)
        for (index, output) in w.host.extraOutputs.enumerated() {
            c.response.add("outputid", index + 1)
            c.response.add("outputname", output.name)
            c.response.add("plugin", output.plugin)
            c.response.add("outputenabled", output.enabled ? 1 : 0)
        }
    }

    /// `enableoutput`/`disableoutput`/`toggleoutput ID`: `change` maps the current switch to
    /// the new one. Idle `output` fires only when it changed, as in MPD.
    static func switchOutput(_ w: inout MPDWorld, _ c: inout Call, _ change: (Bool) -> Bool) throws {
        let id = try checkOutput(c.arguments[0], w.host)
        let before = id == 0 ? w.host.outputEnabled : w.host.extraOutputs[id - 1].enabled
        let enabled = change(before)
        guard enabled != before else { return }
        if id == 0 {
            w.host.outputEnabled = enabled
        } else {
            w.host.extraOutputs[id - 1].enabled = enabled
        }
        w.observer.mark(.output)
    }

    /// `outputset ID NAME VALUE`: the outputs have no runtime attributes here.
    static func outputSet(_ w: inout MPDWorld, _ c: inout Call) throws {
        _ = try checkOutput(c.arguments[0], w.host)
        throw MPDError(.argument, "Unsupported attribute")
    }

    private static func checkOutput(_ argument: String, _ host: MPDHostInfo) throws -> Int {
        let id = try unsigned(argument)
        guard id <= host.extraOutputs.count else { throw MPDError(.noExist, "No such audio output") }
        return Int(id)
    }
}
