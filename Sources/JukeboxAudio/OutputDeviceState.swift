/// The output device as jb-output sees it, and what moves it: ALSA's faults as
/// snd_pcm_recover treats them, and the reopening after the device went away (MPD's
/// AudioOutputControl keeps the same states in flags; here they are one value, and every
/// transition is in `after(_:)`).
enum OutputDeviceState: Equatable, CaseIterable {
    /// Not open: before the first open, after a change of format or depth closed it.
    case closed
    /// Opened or prepared: nothing written since.
    case open
    /// Taking writes.
    case running
    /// A write found the buffer run dry (-EPIPE): it is to be prepared.
    case xrun
    /// The machine slept (-ESTRPIPE): it is to be resumed (again while the driver answers
    /// -EAGAIN), else prepared.
    case suspended
    /// Any other error (a USB DAC pulled out): it is to be closed.
    case gone
    /// An open failed, or it went away: it is opened again once the backoff has passed, and
    /// each try counts as a reopen attempt.
    case reopening

    enum Event: Equatable, CaseIterable {
        case opened
        case openFailed
        case wrote
        case underrun
        case suspend
        /// snd_pcm_resume answered -EAGAIN.
        case stillWaking
        case resumed
        /// Prepared (after an underrun, a suspend that would not resume, or a drop or drain).
        case prepared
        /// A call failed with an error no recovery covers.
        case failed
        case closed
    }

    /// The state after `event`; nil when `event` cannot happen in this state.
    func after(_ event: Event) -> OutputDeviceState? {
        switch (self, event) {
        case (.closed, .opened), (.reopening, .opened): return .open
        case (.closed, .openFailed), (.reopening, .openFailed): return .reopening
        case (.open, .wrote), (.running, .wrote), (.suspended, .resumed): return .running
        case (.open, .underrun), (.running, .underrun): return .xrun
        case (.open, .suspend), (.running, .suspend), (.suspended, .stillWaking): return .suspended
        case (.open, .prepared), (.running, .prepared), (.xrun, .prepared), (.suspended, .prepared): return .open
        case (.open, .failed), (.running, .failed), (.xrun, .failed), (.suspended, .failed): return .gone
        case (.open, .closed), (.running, .closed): return .closed
        case (.gone, .closed): return .reopening
        default: return nil
        }
    }

    /// Whether the device is open (writable, or being recovered in place).
    var isOpen: Bool {
        switch self {
        case .open, .running, .xrun, .suspended: return true
        case .closed, .gone, .reopening: return false
        }
    }
}
