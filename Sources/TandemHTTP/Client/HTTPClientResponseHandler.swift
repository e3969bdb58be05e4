/// The head of an upstream's answer (interim 1xx answers are never delivered).
public struct HTTPClientResponseHead: Sendable, Equatable {
    public var status: Int
    public var reason: String
    public var version: HTTPVersion
    /// As received, in order, names lowercased; hop-by-hop fields included (a relay drops them).
    public var headers: HTTPHeaders

    public init(status: Int, reason: String = "", version: HTTPVersion = .http1_1, headers: HTTPHeaders = [:]) {
        self.status = status
        self.reason = reason
        self.version = version
        self.headers = headers
    }

    init(_ head: HTTPResponseParser.Head) {
        self.init(status: head.status, reason: head.reason, version: HTTPVersion(major: 1, minor: head.minorVersion),
                  headers: HTTPHeaders(head.headers.map { ($0.name, $0.value) }))
    }
}

/// What receives an upstream's answer, on the pool's loop thread, in this order: `head`
/// once, `body` any number of times (de-chunked pieces, as they arrive), then `end` once.
/// A failure may come at any point, before the head too; nothing comes after `end`, and
/// nothing at all once the request is cancelled.
public protocol HTTPClientResponseHandler {
    func head(_ head: HTTPClientResponseHead)
    func body(_ bytes: [UInt8])
    func end(_ result: Result<Void, HTTPClientError>)
}

/// A handler made of three closures.
public struct HTTPClientClosureHandler: HTTPClientResponseHandler {
    let onHead: (HTTPClientResponseHead) -> Void
    let onBody: ([UInt8]) -> Void
    let onEnd: (Result<Void, HTTPClientError>) -> Void

    public init(onHead: @escaping (HTTPClientResponseHead) -> Void, onBody: @escaping ([UInt8]) -> Void,
                onEnd: @escaping (Result<Void, HTTPClientError>) -> Void) {
        self.onHead = onHead
        self.onBody = onBody
        self.onEnd = onEnd
    }

    public func head(_ head: HTTPClientResponseHead) { onHead(head) }
    public func body(_ bytes: [UInt8]) { onBody(bytes) }
    public func end(_ result: Result<Void, HTTPClientError>) { onEnd(result) }
}

/// One request given to an `HTTPClientPool`: waiting in its queue, on a connection, or done.
/// Loop-confined, like the pool; `cancel` may be called from any thread.
public final class HTTPClientTask: @unchecked Sendable {
    public let request: HTTPClientRequest
    public let upstream: HTTPUpstream
    unowned let pool: HTTPClientPool
    let handler: any HTTPClientResponseHandler
    /// The request as written, made once (a retry writes it again).
    let bytes: [UInt8]
    var connection: HTTPClientConnection?
    /// On a connection that had carried a request before: a failure there before any byte
    /// of the answer may be a close the upstream made while the connection sat idle.
    var reused = false
    var retried = false
    /// When it entered its upstream's queue (the loop's clock).
    var queuedAt: UInt64 = 0
    /// Ended or cancelled: the handler hears nothing more.
    var done = false
    public private(set) var isCancelled = false

    init(request: HTTPClientRequest, upstream: HTTPUpstream, pool: HTTPClientPool,
         handler: any HTTPClientResponseHandler, bytes: [UInt8]) {
        self.request = request
        self.upstream = upstream
        self.pool = pool
        self.handler = handler
        self.bytes = bytes
    }

    /// Gives up on the answer (the downstream client left): a queued request is dropped, one
    /// in flight has its connection closed. The handler hears nothing more, not even `end`.
    public func cancel() {
        guard pool.loop.inLoop else {
            pool.loop.execute { [self] in cancel() }
            return
        }
        guard !done else { return }
        done = true
        isCancelled = true
        pool.cancelled(self)
    }

    /// Ends the task with `result`, once.
    func end(_ result: Result<Void, HTTPClientError>) {
        guard !done else { return }
        done = true
        connection = nil
        handler.end(result)
    }
}
