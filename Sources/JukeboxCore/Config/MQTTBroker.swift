/// `[mqtt] broker`: `mqtt://host[:port]` (1883 by default) or `mqtts://host[:port]` (TLS, 8883).
public struct MQTTBroker: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var usesTLS: Bool

    public init(host: String, port: Int, usesTLS: Bool) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
    }

    /// The broker `url` names; nil for another scheme, a missing host, a path or a bad port.
    /// An IPv6 literal is written in brackets (`mqtt://[::1]:1883`).
    public static func parse(_ url: String) -> MQTTBroker? {
        let lowered = url.lowercased()
        let usesTLS: Bool
        let rest: Substring
        if lowered.hasPrefix("mqtt://") {
            usesTLS = false
            rest = url.dropFirst("mqtt://".count)
        } else if lowered.hasPrefix("mqtts://") {
            usesTLS = true
            rest = url.dropFirst("mqtts://".count)
        } else {
            return nil
        }
        let authority = rest.hasSuffix("/") ? rest.dropLast() : rest
        guard !authority.contains("/"), !authority.contains("@") else { return nil }
        var host = authority
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty, !host.contains(" ") else { return nil }
        var port = usesTLS ? 8883 : 1883
        if let portText {
            guard portText.count <= 5, let value = Int(portText), (1...65535).contains(value) else { return nil }
            port = value
        }
        return MQTTBroker(host: String(host), port: port, usesTLS: usesTLS)
    }
}
