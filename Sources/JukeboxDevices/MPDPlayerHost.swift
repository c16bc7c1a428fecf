import MPDProtocol

/// What the MPD transports (the network listener, the serial console) need from the daemon:
/// running protocol requests against the player. The daemon moves its machine into the world,
/// and afterwards performs the world's actions.
public protocol MPDPlayerHost: AnyObject {
    func runMPD<T>(_ body: (inout MPDWorld) -> T) -> T
}
