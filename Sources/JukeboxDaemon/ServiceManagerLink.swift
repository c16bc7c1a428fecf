import JukeboxCore
import LinuxSupport
import Logging

/// What systemd hears from the daemon when it runs as a `Type=notify` service with
/// `WatchdogSec=` (Board/jukeboxd.service): READY=1 once the state is restored (so units
/// ordered after it start when the box can play), WATCHDOG=1 from the control loop at half
/// the watchdog interval (a hung loop stops pinging and systemd restarts the service), and
/// STOPPING=1 when it begins saving and stopping. Without $NOTIFY_SOCKET it does nothing.
struct ServiceManagerLink {
    private let notifier: ServiceNotifier?
    private let logger: Logger
    /// When the next WATCHDOG=1 is due; nil when systemd does not watch.
    private(set) var nextPing: Instant?
    /// A failed send is logged once, not at every ping.
    private var reportedFailure = false

    init(notifier: ServiceNotifier?, logger: Logger) {
        self.notifier = notifier
        self.logger = logger
    }

    mutating func ready(now: Instant) {
        send("READY=1\nSTATUS=playing from the restored state")
        if let interval = notifier?.watchdogNanoseconds {
            logger.info("systemd watchdog: pinging every \(interval / 2_000_000) ms")
            nextPing = now
            pingIfDue(now: now)
        }
    }

    mutating func pingIfDue(now: Instant) {
        guard let due = nextPing, !(now < due), let interval = notifier?.watchdogNanoseconds else { return }
        send("WATCHDOG=1")
        nextPing = now.adding(nanoseconds: Int64(interval / 2))
    }

    mutating func stopping() {
        send("STOPPING=1")
        nextPing = nil
    }

    private mutating func send(_ state: String) {
        guard let notifier else { return }
        do {
            try notifier.send(state)
        } catch {
            guard !reportedFailure else { return }
            reportedFailure = true
            logger.error("systemd notification: \(error)")
        }
    }
}
