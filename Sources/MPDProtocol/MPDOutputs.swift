import JukeboxCore

// The audio outputs as MPD 0.23 shows them: one, number 0, the ALSA device. Disabling it
// silences the box while playback (and its clock) goes on; the daemon applies and saves
// `host.outputEnabled` after the request.

extension MPDCommands {
    static func outputs(_ w: inout MPDWorld, _ c: inout Call) {
        c.response.add("outputid", 0)
        c.response.add("outputname", w.host.outputName)
        c.response.add("plugin", "alsa")
        c.response.add("outputenabled", w.host.outputEnabled ? 1 : 0)
    }

    /// `enableoutput`/`disableoutput`/`toggleoutput ID`: `change` maps the current switch to
    /// the new one. Idle `output` fires only when it changed, as in MPD.
    static func switchOutput(_ w: inout MPDWorld, _ c: inout Call, _ change: (Bool) -> Bool) throws {
        try checkOutput(c.arguments[0])
        let enabled = change(w.host.outputEnabled)
        guard enabled != w.host.outputEnabled else { return }
        w.host.outputEnabled = enabled
        w.observer.mark(.output)
    }

    /// `outputset ID NAME VALUE`: the ALSA output has no runtime attributes here.
    static func outputSet(_ w: inout MPDWorld, _ c: inout Call) throws {
        try checkOutput(c.arguments[0])
        throw MPDError(.argument, "Unsupported attribute")
    }

    private static func checkOutput(_ argument: String) throws {
        guard try unsigned(argument) == 0 else { throw MPDError(.noExist, "No such audio output") }
    }
}
