import Synchronization

/// What every loop shares: configuration, handler and the connection count.
final class ServerCore: Sendable {
    struct TimeoutNanos: Sendable {
        var headerRead: UInt64
        var bodyRead: UInt64
        var idle: UInt64
        var write: UInt64
    }

    let configuration: HTTPServer.Configuration
    let handler: HTTPHandler
    let timeouts: TimeoutNanos
    private let connections = Atomic<Int>(0)

    static let overloadedResponse: [UInt8] = Array(
        "HTTP/1.1 503 Service Unavailable\r\nServer: Tandem\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 79\r\nConnection: close\r\n\r\n{\"error\":{\"code\":\"too_many_connections\",\"message\":\"the server is at capacity\"}}".utf8)

    init(configuration: HTTPServer.Configuration, handler: @escaping HTTPHandler) {
        self.configuration = configuration
        self.handler = handler
        let t = configuration.timeouts
        timeouts = TimeoutNanos(headerRead: t.headerRead.nanoseconds, bodyRead: t.bodyRead.nanoseconds,
                                idle: t.idle.nanoseconds, write: t.write.nanoseconds)
    }

    func admitConnection() -> Bool {
        let n = connections.wrappingAdd(1, ordering: .relaxed).newValue
        if n > configuration.maxConnections {
            connections.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    func releaseConnection() {
        connections.wrappingSubtract(1, ordering: .relaxed)
    }

    var connectionCount: Int { connections.load(ordering: .relaxed) }
}
