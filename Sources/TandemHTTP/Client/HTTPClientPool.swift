import Glibc

/// Keep-alive connections to the other nodes of a cluster, one pool per `EventLoop`, on
/// that loop's thread: a request forwarded from a connection on a loop goes out from the
/// same loop, and no lock is taken on the way.
///
/// Promises:
/// - Per upstream, at most `maxConnectionsPerUpstream` connections (connecting, busy or
///   idle). A request beyond them waits in a FIFO queue of at most `maxQueuedPerUpstream`,
///   and fails with `queueFull` beyond that, or with `queueTimeout` after `maxQueueWait`
///   there (an answer streamed for long, Server-Sent Events, holds its connection all along).
/// - An idle connection is reused before a new one is opened, the most recently used
///   first (LIFO: the rest grow idle and are closed after `idleTimeout`, so the pool
///   shrinks back after a burst).
/// - A request whose reused connection was closed or reset before any byte of its answer
///   arrived (the upstream closed it while idle, as the request crossed) is sent once more,
///   on a new connection, when it is idempotent (GET, HEAD, PUT, DELETE, OPTIONS, TRACE) or
///   carries an `Idempotency-Key`; otherwise, and after a timeout, the failure is its answer.
/// - The handler is always called on the loop, never from inside `send`.
///
/// Loop-confined: `send` must be called on the pool's loop (`current` from a handler or a
/// request's executor; `execute` from any other thread). Names are resolved on the loop
/// (getaddrinfo blocks): once per upstream, again only after a connect fails; numeric
/// addresses never wait. Timeouts are checked on the loop's tick (at most 250 ms apart).
/// There is no flow control: the answer is read as fast as the upstream sends it, and a
/// relay whose downstream falls behind (its stream writer refusing) should `cancel`.
public final class HTTPClientPool: @unchecked Sendable {
    /// The pool's limits and timeouts, the same for every upstream; set per server in
    /// `HTTPServer.Configuration.client`.
    public struct Configuration: Sendable, Equatable {
        /// Connections to one upstream, connecting, busy and idle together (at least 1).
        public var maxConnectionsPerUpstream: Int
        /// Requests waiting for one of them; 0: none wait, a request beyond the limit fails.
        public var maxQueuedPerUpstream: Int
        /// Long-lived answers (event streams) open to one upstream at once, each on a
        /// connection of its own; past it one fails (`queueFull`).
        public var maxStreamsPerUpstream: Int
        /// Longest a request waits in the queue for a connection.
        public var maxQueueWait: Duration
        /// An idle connection is closed after this.
        public var idleTimeout: Duration
        /// From the socket's creation to an established connection.
        public var connectTimeout: Duration
        /// From the request's last byte written to the end of the answer's head.
        public var headTimeout: Duration
        /// A larger answer head fails the request (`malformedResponse("head_too_large")`).
        public var maxHeadBytes: Int

        public init(maxConnectionsPerUpstream: Int = 8, maxQueuedPerUpstream: Int = 256, maxStreamsPerUpstream: Int = 4096,
                    maxQueueWait: Duration = .seconds(10),
                    idleTimeout: Duration = .seconds(30),
                    connectTimeout: Duration = .seconds(3), headTimeout: Duration = .seconds(30), maxHeadBytes: Int = 64 * 1024) {
            self.maxConnectionsPerUpstream = max(1, maxConnectionsPerUpstream)
            self.maxQueuedPerUpstream = max(0, maxQueuedPerUpstream)
            self.maxStreamsPerUpstream = max(0, maxStreamsPerUpstream)
            self.maxQueueWait = maxQueueWait
            self.idleTimeout = idleTimeout
            self.connectTimeout = connectTimeout
            self.headTimeout = headTimeout
            self.maxHeadBytes = maxHeadBytes
        }
    }

    /// What the pool keeps for one upstream.
    private final class Upstream {
        var address: sockaddr_storage?
        /// Idle connections, the most recently used last.
        var idle: [HTTPClientConnection] = []
        /// Connections counted against the limit: connecting, busy and idle.
        var open = 0
        /// Connections of long-lived answers, counted apart.
        var streams = 0
        var queue: [HTTPClientTask] = []
    }

    unowned let loop: EventLoop
    public let configuration: Configuration
    private let timeouts: HTTPClientStateMachine.Timeouts
    private var upstreams: [HTTPUpstream: Upstream] = [:]
    private var stopped = false

    init(loop: EventLoop, configuration: Configuration) {
        self.loop = loop
        self.configuration = configuration
        timeouts = .init(connect: configuration.connectTimeout.nanoseconds, head: configuration.headTimeout.nanoseconds,
                         idle: configuration.idleTimeout.nanoseconds)
    }

    /// The pool of the event loop running the calling thread (a request handler, or work on
    /// a request's executor); nil on any other thread.
    public static var current: HTTPClientPool? { EventLoop.current?.clientPool }

    /// Runs `work` on the pool's loop; callable from any thread.
    public func execute(_ work: @escaping @Sendable (HTTPClientPool) -> Void) {
        loop.execute { [self] in work(self) }
    }

    /// Sends `request` to `upstream`; `handler` hears the answer on this loop.
    @discardableResult
    public func send(_ request: HTTPClientRequest, to upstream: HTTPUpstream, handler: some HTTPClientResponseHandler) -> HTTPClientTask {
        precondition(loop.inLoop, "HTTPClientPool.send must be called on the pool's event loop")
        let bytes: [UInt8]
        var failure: HTTPClientError?
        switch request.serialized(for: upstream) {
        case .success(let b): bytes = b
        case .failure(let error): bytes = []; failure = error
        }
        let task = HTTPClientTask(request: request, upstream: upstream, pool: self, handler: handler, bytes: bytes)
        if stopped { failure = HTTPClientError(.shutdown) }
        if let failure { failLater(task, failure) } else { dispatch(task, fresh: false) }
        return task
    }

    /// `send` with closures for the handler.
    @discardableResult
    public func send(_ request: HTTPClientRequest, to upstream: HTTPUpstream,
                     onHead: @escaping (HTTPClientResponseHead) -> Void, onBody: @escaping ([UInt8]) -> Void,
                     onEnd: @escaping (Result<Void, HTTPClientError>) -> Void) -> HTTPClientTask {
        send(request, to: upstream, handler: HTTPClientClosureHandler(onHead: onHead, onBody: onBody, onEnd: onEnd))
    }

    /// Connections open to `upstream` (connecting, busy or idle), and how many are idle;
    /// long-lived answers' connections apart.
    public func connectionCount(to upstream: HTTPUpstream) -> (open: Int, idle: Int) {
        guard let u = upstreams[upstream] else { return (0, 0) }
        return (u.open, u.idle.count)
    }

    /// Connections of long-lived answers open to `upstream`.
    public func streamCount(to upstream: HTTPUpstream) -> Int { upstreams[upstream]?.streams ?? 0 }

    // MARK: placing requests

    /// On an idle connection (unless `fresh`), a new one, or in the queue.
    private func dispatch(_ task: HTTPClientTask, fresh: Bool) {
        let u = state(of: task.upstream)
        if task.request.longLived {
            return u.streams < configuration.maxStreamsPerUpstream ? open(for: task, u) : failLater(task, HTTPClientError(.queueFull))
        }
        if !fresh, let conn = u.idle.popLast() {
            assign(task, to: conn, reused: true)
        } else if u.open < configuration.maxConnectionsPerUpstream {
            open(for: task, u)
        } else if u.queue.count < configuration.maxQueuedPerUpstream {
            task.queuedAt = loop.now
            u.queue.append(task)
        } else {
            failLater(task, HTTPClientError(.queueFull))
        }
    }

    private func open(for task: HTTPClientTask, _ u: Upstream) {
        if u.address == nil {
            do {
                u.address = try SocketAddress.resolve(host: task.upstream.host, port: task.upstream.port).first
            } catch {
                failLater(task, HTTPClientError(.resolveFailed("\(error)")))
                return
            }
        }
        guard let address = u.address else {
            failLater(task, HTTPClientError(.resolveFailed("no address")))
            return
        }
        switch HTTPClientConnection.connect(loop: loop, pool: self, to: address, upstream: task.upstream,
                                            timeouts: timeouts, maxHeadBytes: configuration.maxHeadBytes) {
        case .success(let conn):
            conn.longLived = task.request.longLived
            if conn.longLived { u.streams += 1 } else { u.open += 1 }
            assign(task, to: conn, reused: false)
        case .failure(let error):
            u.address = nil  // resolved again next time: the node may have moved
            failLater(task, error)
        }
    }

    private func assign(_ task: HTTPClientTask, to conn: HTTPClientConnection, reused: Bool) {
        task.connection = conn
        task.reused = reused
        conn.task = task
        conn.start(.init(bytes: task.bytes, expectsBody: task.request.expectsResponseBody,
                         keepAlive: !task.request.closeConnection,
                         bodyIdleTimeout: task.request.bodyIdleTimeout?.nanoseconds))
    }

    /// Hands freed capacity to the queue, oldest first.
    private func serveQueue(_ u: Upstream) {
        while !u.queue.isEmpty, !stopped {
            if let conn = u.idle.popLast() {
                assign(u.queue.removeFirst(), to: conn, reused: true)
            } else if u.open < configuration.maxConnectionsPerUpstream {
                open(for: u.queue.removeFirst(), u)
            } else {
                return
            }
        }
    }

    /// Ends `task` with `error` from the loop's task queue: never inside the caller's call.
    private func failLater(_ task: HTTPClientTask, _ error: HTTPClientError) {
        task.connection = nil
        loop.execute { task.end(.failure(error)) }
    }

    private func state(of upstream: HTTPUpstream) -> Upstream {
        if let u = upstreams[upstream] { return u }
        let u = Upstream()
        upstreams[upstream] = u
        return u
    }

    // MARK: from connections and tasks

    /// What a connection's machine answered; after `.finish(reusable: false)`, `.fail` and
    /// `.close`, the connection is closed already.
    func deliver(_ action: HTTPClientStateMachine.Action, from conn: HTTPClientConnection) {
        let task = conn.task
        let live = task.map { !$0.done } ?? false
        switch action {
        case .write:
            break
        case .head(let head):
            if live, let task { task.handler.head(HTTPClientResponseHead(head)) }
        case .body(let bytes):
            if live, let task { task.handler.body(bytes) }
        case .finish(let reusable):
            let u = state(of: conn.upstream)
            conn.task = nil
            if reusable {
                // A stream that ended cleanly leaves a connection like any other.
                if conn.longLived { (conn.longLived, u.streams, u.open) = (false, u.streams - 1, u.open + 1) }
                u.idle.append(conn)
            } else {
                gone(conn, u)
            }
            serveQueue(u)
            task?.end(.success(()))
        case .fail(let error):
            let u = state(of: conn.upstream)
            conn.task = nil
            gone(conn, u)
            switch error.kind {
            case .connectFailed, .connectTimeout: u.address = nil  // resolved again: the node may have moved
            default: break
            }
            guard live, let task else {
                serveQueue(u)
                return
            }
            task.connection = nil
            if Self.lostOnStaleConnection(error), task.reused, !task.retried, task.request.isRetryable, !stopped {
                // Before the queue: the slot this connection held is the retry's.
                task.retried = true
                dispatch(task, fresh: true)
                serveQueue(u)
            } else {
                serveQueue(u)
                task.end(.failure(error))
            }
        case .close:
            let u = state(of: conn.upstream)
            conn.task = nil
            gone(conn, u)
            serveQueue(u)
        }
    }

    /// The connection went away before any byte of the answer, as one the upstream closed
    /// while it sat idle does; not a timeout (the upstream is slow, and would be asked twice).
    static func lostOnStaleConnection(_ error: HTTPClientError) -> Bool {
        guard !error.answerStarted else { return false }
        switch error.kind {
        case .connectionClosed, .io: return true
        default: return false
        }
    }

    private func gone(_ conn: HTTPClientConnection, _ u: Upstream) {
        if conn.longLived { u.streams -= 1 } else { u.open -= 1 }
        u.idle.removeAll { $0 === conn }
    }

    func cancelled(_ task: HTTPClientTask) {
        if let conn = task.connection {
            task.connection = nil
            conn.cancel()
        } else if let u = upstreams[task.upstream] {
            u.queue.removeAll { $0 === task }
        }
    }

    /// The loop's timer: fails requests queued for longer than `maxQueueWait` (the oldest
    /// are first in each queue).
    func sweep(now: UInt64) {
        let limit = configuration.maxQueueWait.nanoseconds
        for u in upstreams.values {
            while let first = u.queue.first, now &- first.queuedAt > limit {
                u.queue.removeFirst()
                first.end(.failure(HTTPClientError(.queueTimeout)))
            }
        }
    }

    /// The loop is stopping: queued requests fail, and no new one is taken (the loop
    /// closes the connections, failing those in flight).
    func shutdown() {
        stopped = true
        for u in upstreams.values {
            let queued = u.queue
            u.queue = []
            for task in queued { task.end(.failure(HTTPClientError(.shutdown))) }
        }
    }
}
