import CALSA
import Glibc

/// One simple mixer element on a card (e.g. "PCM" on "hw:0"): the single owner of the
/// `snd_mixer_t`, closed in `deinit` (snd_mixer_close). Used from the control thread only.
public final class Mixer {
    private let handle: OpaquePointer
    private let element: OpaquePointer
    public let card: String
    public let control: String

    /// Opens the mixer of `card` and finds the playback element `control`.
    /// The corresponding C functions are snd_mixer_open, snd_mixer_attach,
    /// snd_mixer_selem_register, snd_mixer_load, snd_mixer_find_selem.
    public init(card: String, control: String) throws(ALSAError) {
        var m: OpaquePointer?
        try check(snd_mixer_open(&m, 0), "snd_mixer_open", card)
        guard let m else { throw ALSAError(code: EINVAL, call: "snd_mixer_open", device: card) }
        do throws(ALSAError) {
            try check(snd_mixer_attach(m, card), "snd_mixer_attach", card)
            try check(snd_mixer_selem_register(m, nil, nil), "snd_mixer_selem_register", card)
            try check(snd_mixer_load(m), "snd_mixer_load", card)
            var sid: OpaquePointer?
            try check(snd_mixer_selem_id_malloc(&sid), "snd_mixer_selem_id_malloc", card)
            defer { snd_mixer_selem_id_free(sid) }
            snd_mixer_selem_id_set_index(sid, 0)
            snd_mixer_selem_id_set_name(sid, control)
            guard let e = snd_mixer_find_selem(m, sid), snd_mixer_selem_has_playback_volume(e) != 0 else {
                throw ALSAError(code: ENOENT, call: "snd_mixer_find_selem(\(control))", device: card)
            }
            element = e
        } catch {
            snd_mixer_close(m)
            throw error
        }
        handle = m
        self.card = card
        self.control = control
    }

    deinit { snd_mixer_close(handle) }

    /// Sets the playback volume of all channels to `percent` (0...100) of the element's
    /// dB range when it has one (0 % = mute/minimum), else of its raw range.
    /// The corresponding C functions are snd_mixer_selem_set_playback_dB_all and
    /// snd_mixer_selem_set_playback_volume_all.
    public func setVolume(percent: Int) throws(ALSAError) {
        let p = Double(min(max(percent, 0), 100)) / 100
        var minDB = 0
        var maxDB = 0
        if snd_mixer_selem_get_playback_dB_range(element, &minDB, &maxDB) == 0, maxDB > minDB {
            // Perceptual mapping as alsamixer does (cubic in amplitude), in 1/100 dB.
            let minNorm = pow(10.0, Double(minDB - maxDB) / 6000.0)
            let amplitude = minNorm + p * p * p * (1 - minNorm)
            let db = p == 0 ? minDB : maxDB + Int(6000.0 * log10(max(amplitude, 1e-9)))
            try check(
                snd_mixer_selem_set_playback_dB_all(element, db, 0), "snd_mixer_selem_set_playback_dB_all", card)
            return
        }
        var lo = 0
        var hi = 0
        try check(
            snd_mixer_selem_get_playback_volume_range(element, &lo, &hi), "snd_mixer_selem_get_playback_volume_range",
            card)
        let v = lo + Int((Double(hi - lo) * p).rounded())
        try check(snd_mixer_selem_set_playback_volume_all(element, v), "snd_mixer_selem_set_playback_volume_all", card)
    }
}
