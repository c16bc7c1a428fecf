import CMosquitto

/// A libmosquitto call that failed: the call, and mosquitto's own message for its code.
public struct MQTTError: Error, Sendable, CustomStringConvertible {
    public var call: String
    public var code: Int32

    public var description: String {
        "\(call): \(String(cString: mosquitto_strerror(code)))"
    }
}

/// What the connection reported since the last `takeEvents`.
public enum MQTTEvent: Sendable, Equatable {
    /// The broker answered CONNECT; `code` 0 is accepted, else the refusal's reason.
    case connected(code: Int32, reason: String)
    /// The connection ended (`code` 0: we asked for it).
    case disconnected(code: Int32)
    case message(topic: String, payload: [UInt8])
}

/// Collects the callbacks' events for the loop that owns the client (no threads: the
/// callbacks run inside `loopRead`/`loopWrite`/`loopMisc`, on the caller's thread).
private final class EventInbox {
    var events: [MQTTEvent] = []
}

/// One libmosquitto client handle, owned by this object alone, driven from the owner's poll
/// loop (`socket`, `wantsWrite`, `loopRead`, `loopWrite`, `loopMisc`): libmosquitto starts no
/// thread, and nothing here blocks on the broker.
public final class MQTTClient {
    private let handle: OpaquePointer
    private let inbox = EventInbox()

    /// A client with `clientID`, a clean session.
    public init(clientID: String) throws(MQTTError) {
        _ = Self.libraryReady
        guard let handle = mosquitto_new(clientID, true, nil) else {
            throw MQTTError(call: "mosquitto_new", code: MOSQ_ERR_NOMEM.rawValue)
        }
        self.handle = handle
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(inbox).toOpaque())
        mosquitto_connect_callback_set(handle) { _, context, code in
            EventInbox.from(context)?.events.append(
                .connected(code: code, reason: String(cString: mosquitto_connack_string(code))))
        }
        mosquitto_disconnect_callback_set(handle) { _, context, code in
            EventInbox.from(context)?.events.append(.disconnected(code: code))
        }
        mosquitto_message_callback_set(handle) { _, context, message in
            guard let message, let topic = message.pointee.topic else { return }
            let count = Int(max(0, message.pointee.payloadlen))
            let payload =
                message.pointee.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
            EventInbox.from(context)?.events.append(.message(topic: String(cString: topic), payload: payload))
        }
    }

    deinit {
        mosquitto_destroy(handle)
    }

    /// mosquitto_lib_init, once per process (never undone: the process ends with it).
    private static let libraryReady: Void = { _ = mosquitto_lib_init() }()

    private func check(_ call: String, _ code: Int32) throws(MQTTError) {
        guard code == MOSQ_ERR_SUCCESS.rawValue else { throw MQTTError(call: call, code: code) }
    }

    public func setCredentials(username: String, password: String) throws(MQTTError) {
        try check("mosquitto_username_pw_set", mosquitto_username_pw_set(handle, username, password))
    }

    /// The message the broker publishes for us when the connection drops without a DISCONNECT.
    public func setWill(topic: String, payload: String, retain: Bool) throws(MQTTError) {
        let bytes = Array(payload.utf8)
        try check("mosquitto_will_set", mosquitto_will_set(handle, topic, Int32(bytes.count), bytes, 1, retain))
    }

    /// TLS, the server's certificate checked against `caFile`, or the system's CAs when nil.
    public func setTLS(caFile: String?) throws(MQTTError) {
        try check(
            "mosquitto_tls_set",
            mosquitto_tls_set(handle, caFile, caFile == nil ? "/etc/ssl/certs" : nil, nil, nil, nil))
    }

    /// Starts connecting (a non-blocking connect; CONNACK arrives as `.connected`).
    public func connect(host: String, port: Int, keepAliveSeconds: Int) throws(MQTTError) {
        try check(
            "mosquitto_connect_async", mosquitto_connect_async(handle, host, Int32(port), Int32(keepAliveSeconds)))
    }

    /// Sends DISCONNECT (the broker then does not publish the will).
    public func disconnect() {
        _ = mosquitto_disconnect(handle)
    }

    /// The connection's socket, -1 when there is none.
    public var socket: Int32 { mosquitto_socket(handle) }

    /// Whether packets wait to be written (poll the socket for writing too).
    public var wantsWrite: Bool { mosquitto_want_write(handle) }

    /// Reads what the socket has (call when it is readable).
    public func loopRead() throws(MQTTError) {
        try check("mosquitto_loop_read", mosquitto_loop_read(handle, 1))
    }

    /// Writes what is queued (call when the socket is writable).
    public func loopWrite() throws(MQTTError) {
        try check("mosquitto_loop_write", mosquitto_loop_write(handle, 1))
    }

    /// Keep-alive pings and retries (call at least once a second).
    public func loopMisc() throws(MQTTError) {
        try check("mosquitto_loop_misc", mosquitto_loop_misc(handle))
    }

    /// Queues a message (QoS 1: the broker keeps retained state exactly).
    public func publish(topic: String, payload: String, retain: Bool) throws(MQTTError) {
        let bytes = Array(payload.utf8)
        try check("mosquitto_publish", mosquitto_publish(handle, nil, topic, Int32(bytes.count), bytes, 1, retain))
    }

    public func subscribe(_ pattern: String) throws(MQTTError) {
        try check("mosquitto_subscribe", mosquitto_subscribe(handle, nil, pattern, 1))
    }

    /// The events the callbacks collected, oldest first.
    public func takeEvents() -> [MQTTEvent] {
        defer { inbox.events.removeAll() }
        return inbox.events
    }
}

extension EventInbox {
    static func from(_ context: UnsafeMutableRawPointer?) -> EventInbox? {
        context.map { Unmanaged<EventInbox>.fromOpaque($0).takeUnretainedValue() }
    }
}
