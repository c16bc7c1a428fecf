import CALSA

/// A failed alsa-lib call: the negative error code alsa-lib returned (normalised to a
/// positive errno value once, here), the call, and the PCM or mixer device it concerned.
/// `description` uses `snd_strerror`, e.g. "hw:1,0: snd_pcm_open failed: No such file or directory".
public struct ALSAError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The errno value (positive). alsa-lib returns `-errno`; the sign is removed once.
    public var code: Int32
    /// The C function that failed, e.g. "snd_pcm_open".
    public var call: String
    /// The ALSA device name the call concerned.
    public var device: String

    public init(code: Int32, call: String, device: String) {
        self.code = code < 0 ? -code : code
        self.call = call
        self.device = device
    }

    /// alsa-lib's text for the code. The corresponding C function is snd_strerror.
    public var message: String { String(cString: snd_strerror(-code)) }

    public var description: String { "\(device): \(call) failed: \(message)" }
}

@inline(__always)
func check(_ rc: Int32, _ call: String, _ device: String) throws(ALSAError) {
    if rc < 0 { throw ALSAError(code: rc, call: call, device: device) }
}
