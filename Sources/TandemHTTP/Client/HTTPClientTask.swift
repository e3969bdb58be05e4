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
    /// `cancel` has taken effect (read it on the loop).
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
