import Glibc

/// The numeric addresses of the network interfaces that are up (getifaddrs), in the order the
/// kernel lists them: what the box is reachable at. IPv4 and IPv6, loopback included; which to
/// say is the caller's choice.
public enum NetworkAddresses {
    public struct Entry: Sendable, Equatable {
        /// `wlan0`, `eth0`.
        public var interface: String
        /// `192.168.1.20`, `fe80::1`.
        public var address: String
    }

    /// Empty when getifaddrs fails (no network to speak of).
    public static func current() -> [Entry] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var entries: [Entry] = []
        var next: UnsafeMutablePointer<ifaddrs>? = first
        while let item = next?.pointee {
            next = item.ifa_next
            guard let address = item.ifa_addr, item.ifa_flags & UInt32(IFF_UP) != 0 else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else {
                continue
            }
            entries.append(
                Entry(
                    interface: String(cString: item.ifa_name),
                    address: String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
        }
        return entries
    }
}
