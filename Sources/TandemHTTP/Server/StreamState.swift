import Synchronization

/// The shared state behind one `HTTPStreamWriter`: chunks queued by any thread,
/// drained into the socket by the connection's loop. Chunks are queued as the arrays they
/// came in (see `HTTPStreamChunk`), never copied.
///
/// A gzipped stream (its head says `Content-Encoding: gzip`) sends each chunk as a
/// `GzipPiece` in a chunk of its own, the gzip header before the first and the trailer when
/// it finishes: each write still reaches the client at once, decodable as it arrives.
final class StreamState: Sendable {
    struct Inner {
        var queued: [[UInt8]] = []
        /// Set for a gzipped stream: what its trailer needs, and whether the header went out.
        var gzip: GzipStreamEncoder?
        var gzipHeaderSent = false
        var queuedBytes = 0
        var finished = false
        var closed = false
        var pumpScheduled = false
        var closeHandlers: [@Sendable () -> Void] = []
    }

    let inner = Mutex(Inner())
    /// Bytes of this stream handed to the connection but not yet accepted by the socket.
    let unsent = Atomic<Int>(0)
    let maxBuffered: Int
    /// Asks the loop to drain `queued` (set once the connection exists).
    let schedulePump: @Sendable () -> Void

    let compresses: Bool

    init(maxBuffered: Int, gzip: Bool = false, schedulePump: @escaping @Sendable () -> Void) {
        self.maxBuffered = maxBuffered
        self.schedulePump = schedulePump
        compresses = gzip
        if gzip { inner.withLock { $0.gzip = GzipStreamEncoder() } }
    }

    func write(_ chunk: HTTPStreamChunk) -> Bool {
        // An empty chunk would end the body.
        if chunk.count == 0 { return !isClosed }
        // Compressed before the lock, unless it came compressed.
        let gzipped = compresses ? chunk.gzipped : nil
        if compresses && gzipped == nil { return false }
        let (ok, wake) = inner.withLock { s -> (Bool, Bool) in
            if s.closed || s.finished { return (false, false) }
            if s.queuedBytes + unsent.load(ordering: .relaxed) > maxBuffered { return (false, false) }
            if let gzipped {
                if !s.gzipHeaderSent { s.queue(Self.gzipHeaderChunk) }
                s.gzipHeaderSent = true
                s.gzip?.add(gzipped.piece)
                s.queue(gzipped.framed)
            } else {
                s.queue(chunk.framed)
            }
            let wake = !s.pumpScheduled
            s.pumpScheduled = true
            return (true, wake)
        }
        if wake { schedulePump() }
        return ok
    }

    func finish() {
        let wake = inner.withLock { s -> Bool in
            if s.closed || s.finished { return false }
            s.finished = true
            if let gzip = s.gzip {
                if !s.gzipHeaderSent { s.queue(Self.gzipHeaderChunk) }
                s.queue(HTTPStreamChunk.frame(gzip.trailer))
            }
            s.queue(Self.lastChunk)
            let wake = !s.pumpScheduled
            s.pumpScheduled = true
            return wake
        }
        if wake { schedulePump() }
    }

    static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)
    static let gzipHeaderChunk = HTTPStreamChunk.frame(GzipStreamEncoder.header)

    /// Takes what is queued, and whether the body is now complete.
    func take() -> ([[UInt8]], Bool) {
        inner.withLock { s in
            s.pumpScheduled = false
            let chunks = s.queued
            s.queued = []
            s.queuedBytes = 0
            return (chunks, s.finished)
        }
    }

    var bufferedByteCount: Int {
        inner.withLock { $0.queuedBytes } + unsent.load(ordering: .relaxed)
    }

    var isClosed: Bool { inner.withLock { $0.closed || $0.finished } }

    func onClose(_ handler: @escaping @Sendable () -> Void) {
        let runNow = inner.withLock { s -> Bool in
            if s.closed { return true }
            s.closeHandlers.append(handler)
            return false
        }
        if runNow { handler() }
    }

    /// Ends the stream for good (finished and written, peer gone, or cut off) and runs the handlers once.
    func close() {
        let handlers = inner.withLock { s -> [@Sendable () -> Void] in
            if s.closed { return [] }
            s.closed = true
            let h = s.closeHandlers
            s.closeHandlers = []
            return h
        }
        for h in handlers { h() }
    }

    func makeWriter() -> HTTPStreamWriter {
        HTTPStreamWriter(.init(
            write: { [self] in write($0) },
            finish: { [self] in finish() },
            bufferedByteCount: { [self] in bufferedByteCount },
            isClosed: { [self] in isClosed },
            onClose: { [self] in onClose($0) },
            compresses: compresses
        ))
    }
}

extension StreamState.Inner {
    mutating func queue(_ framed: [UInt8]) {
        queued.append(framed)
        queuedBytes += framed.count
    }
}
