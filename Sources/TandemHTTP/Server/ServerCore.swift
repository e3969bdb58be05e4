import Synchronization

/// What every loop shares: configuration, handler and the connection count.
final class ServerCore: Sendable {
    struct TimeoutNanos: Sendable {
        var headerRead: UInt64
        var bodyRead: UInt64
        var idle: UInt64
        var write: UInt64
        var minimumBodyRate: UInt64
        var minimumWriteRate: UInt64

        /// How long `bytes` may take at `rate` bytes/s after `grace` (never, with rate 0).
        static func allowance(grace: UInt64, bytes: Int, rate: UInt64) -> UInt64 {
            guard rate > 0 else { return .max }
            let b = UInt64(max(0, bytes))
            return grace &+ (b / rate) &* 1_000_000_000 &+ (b % rate) &* 1_000_000_000 / rate
        }
    }

    let configuration: HTTPServer.Configuration
    let handler: HTTPHandler
    let timeouts: TimeoutNanos
    private let connections = Atomic<Int>(0)
    /// `configuration.maxConnections`, lowered at start to what the descriptor limit allows.
    private let connectionCap: Atomic<Int>

    init(configuration: HTTPServer.Configuration, handler: @escaping HTTPHandler) {
        self.configuration = configuration
        self.handler = handler
        let t = configuration.timeouts
        timeouts = TimeoutNanos(headerRead: t.headerRead.nanoseconds, bodyRead: t.bodyRead.nanoseconds,
                                idle: t.idle.nanoseconds, write: t.write.nanoseconds,
                                minimumBodyRate: UInt64(t.minimumBodyRate), minimumWriteRate: UInt64(t.minimumWriteRate))
        connectionCap = Atomic(configuration.maxConnections)
    }

    var maxConnections: Int {
        get { connectionCap.load(ordering: .relaxed) }
        set { connectionCap.store(newValue, ordering: .relaxed) }
    }

    func admitConnection() -> Bool {
        let n = connections.wrappingAdd(1, ordering: .relaxed).newValue
        if n > maxConnections {
            connections.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    func releaseConnection() {
        connections.wrappingSubtract(1, ordering: .relaxed)
    }

    /// Open connections per client (`limitKey`), kept only while a cap is set.
    private let perAddress = Mutex<[IPAddress: Int]>([:])

    enum PeerAdmission {
        /// Not counted (no cap, or a trusted proxy): nothing to release later.
        case uncounted
        /// Counted against this key; release it when the connection ends.
        case counted(IPAddress)
        /// The peer already holds the cap: nothing was counted.
        case refused
    }

    func admitConnection(from peer: IPAddress) -> PeerAdmission {
        let cap = configuration.maxConnectionsPerAddress
        guard cap > 0, !configuration.uncappedPeer(peer) else { return .uncounted }
        let key = peer.limitKey
        let admitted = perAddress.withLock { counts -> Bool in
            let n = counts[key, default: 0]
            guard n < cap else { return false }
            counts[key] = n + 1
            return true
        }
        return admitted ? .counted(key) : .refused
    }

    func releaseConnection(from key: IPAddress) {
        perAddress.withLock { counts in
            let n = (counts[key] ?? 1) - 1
            counts[key] = n > 0 ? n : nil
        }
    }

    var connectionCount: Int { connections.load(ordering: .relaxed) }

    /// The answer to a client that holds the per-address cap already.
    static func perAddressResponse(date: [UInt8], cap: Int) -> [UInt8] {
        serialize(HTTPResponse.error(
            .tooManyRequests, code: "too_many_connections_from_address",
            message: "this address already holds \(cap) connections (the per-address connection limit); close some or reuse them",
            headers: ["Retry-After": "1"]), date: date)
    }

    /// The answer to a connection turned away at accept, dated like every other response.
    static func overloadedResponse(date: [UInt8]) -> [UInt8] {
        serialize(HTTPResponse.error(.serviceUnavailable, code: "too_many_connections", message: "the server is at capacity"), date: date)
    }

    private static func serialize(_ error: HTTPResponse, date: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        let body = error.bodyBytes ?? []
        ResponseSerializer.appendHead(
            status: error.status, headers: error.headers, framing: .length(body.count),
            connection: "close", date: date, to: &out)
        out.append(contentsOf: body)
        return out
    }
}
