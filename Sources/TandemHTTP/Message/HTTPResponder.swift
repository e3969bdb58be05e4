import Synchronization

/// Answers one request, now or later, from any thread. Handlers that finish at once
/// call `send` before returning; long-polls and group commits keep the responder and
/// call it when their answer is ready. The connection answers pipelined requests in order.
public final class HTTPResponder: Sendable {
    private let deliver: @Sendable (HTTPResponse) -> Void
    private let sent = Mutex(false)

    /// `deliver` is the connection's; it is called at most once.
    public init(deliver: @escaping @Sendable (HTTPResponse) -> Void) {
        self.deliver = deliver
    }

    /// Sends the response; later calls are ignored.
    public func send(_ response: HTTPResponse) {
        let first = sent.withLock { sent -> Bool in
            if sent { return false }
            sent = true
            return true
        }
        if first { deliver(response) }
    }

    public var hasSent: Bool { sent.withLock { $0 } }
}

/// The writing end of a streamed (chunked) response body, such as Server-Sent Events.
/// Safe from any thread; each `write` becomes one chunk on the wire, in call order.
public final class HTTPStreamWriter: Sendable {
    public struct Operations: Sendable {
        /// Queues a chunk; false if the stream is closed or the peer is too far behind.
        public var write: @Sendable (HTTPStreamChunk) -> Bool
        /// Ends the body (zero-length chunk); the connection may then carry on with keep-alive.
        public var finish: @Sendable () -> Void
        /// Bytes queued but not yet accepted by the socket.
        public var bufferedByteCount: @Sendable () -> Int
        public var isClosed: @Sendable () -> Bool
        /// Registers a handler run once when the stream ends for any reason (finish, peer gone, cut off).
        public var onClose: @Sendable (@escaping @Sendable () -> Void) -> Void
        /// Whether the stream is gzipped: a writer to many such streams can compress a chunk
        /// once for all of them (`HTTPStreamChunk(_:gzip:)`).
        public var compresses: Bool

        public init(
            write: @escaping @Sendable (HTTPStreamChunk) -> Bool,
            finish: @escaping @Sendable () -> Void,
            bufferedByteCount: @escaping @Sendable () -> Int,
            isClosed: @escaping @Sendable () -> Bool,
            onClose: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void,
            compresses: Bool = false
        ) {
            self.compresses = compresses
            self.write = write
            self.finish = finish
            self.bufferedByteCount = bufferedByteCount
            self.isClosed = isClosed
            self.onClose = onClose
        }
    }

    private let ops: Operations

    public init(_ operations: Operations) { ops = operations }

    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool { ops.write(HTTPStreamChunk(bytes)) }
    /// Queues a chunk framed once for many streams (see `HTTPStreamChunk`).
    @discardableResult
    public func write(_ chunk: HTTPStreamChunk) -> Bool { ops.write(chunk) }
    public func finish() { ops.finish() }
    public var bufferedByteCount: Int { ops.bufferedByteCount() }
    public var isClosed: Bool { ops.isClosed() }
    public var compresses: Bool { ops.compresses }
    public func onClose(_ handler: @escaping @Sendable () -> Void) { ops.onClose(handler) }
}

/// What the server calls for every request that parsed: answer through the responder.
/// The request is handed over (owned), so the router can add path parameters to it in
/// place: a borrowed one had to be copied, a retain and a release for each of its fields.
public typealias HTTPHandler = @Sendable (__owned HTTPRequest, HTTPResponder) -> Void
