import Synchronization

/// The shared state behind one `HTTPStreamWriter`: chunks queued by any thread,
/// drained into the socket by the connection's loop. Chunks are queued as the arrays they
/// came in (see `HTTPStreamChunk`), never copied.
///
/// A gzipped stream (its head says `Content-Encoding: gzip`) sends each chunk as a
/// `GzipPiece` in a chunk of its own, the gzip header before the first and the trailer when
/// it finishes: each write still reaches the client at once, decodable as it arrives. A
/// chunk not made for gzip is compressed when the loop takes it, not by the writer: a
/// resuming subscriber's catch-up (up to megabytes) is written under its document's lock,
/// where compressing it would hold up every edit of the document.
final class StreamState: Sendable {
    struct Inner {
        var queued: [[UInt8]] = []
        /// A gzipped stream's chunks, as written: made into pieces by `take`.
        var pending: [Pending] = []
        var queuedBytes = 0
        var finished = false
        var closed = false
        var pumpScheduled = false
        var closeHandlers: [@Sendable () -> Void] = []
    }

    enum Pending {
        case chunk(HTTPStreamChunk)
        case finish
    }

    /// Only `take` uses it, on the connection's loop.
    struct GzipState {
        var encoder = GzipStreamEncoder()
        var headerSent = false
    }

    let inner = Mutex(Inner())
    private let gzip = Mutex(GzipState())
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
    }

    func write(_ chunk: HTTPStreamChunk) -> Bool {
        // An empty chunk would end the body.
        if chunk.count == 0 { return !isClosed }
        let (ok, wake) = inner.withLock { s -> (Bool, Bool) in
            if s.closed || s.finished { return (false, false) }
            if s.queuedBytes + unsent.load(ordering: .relaxed) > maxBuffered { return (false, false) }
            if compresses {
                s.pending.append(.chunk(chunk))
                s.queuedBytes += chunk.gzip?.framed.count ?? chunk.framed.count
            } else {
                s.queued.append(chunk.framed)
                s.queuedBytes += chunk.framed.count
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
            if compresses {
                s.pending.append(.finish)
            } else {
                s.queued.append(Self.lastChunk)
                s.queuedBytes += Self.lastChunk.count
            }
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
        let (chunks, pending, finished) = inner.withLock { s in
            s.pumpScheduled = false
            let taken = (s.queued, s.pending, s.finished)
            s.queued = []
            s.pending = []
            s.queuedBytes = 0
            return taken
        }
        guard compresses else { return (chunks, finished) }
        return gzip.withLock { g in
            var out: [[UInt8]] = []
            for entry in pending {
                if !g.headerSent {
                    out.append(Self.gzipHeaderChunk)
                    g.headerSent = true
                }
                switch entry {
                case .chunk(let chunk):
                    guard let gzipped = chunk.gzipped else {
                        // zlib failed (out of memory): end the body without a trailer, so the
                        // client sees a broken stream and reconnects rather than miss events.
                        out.append(Self.lastChunk)
                        inner.withLock { $0.finished = true }
                        return (out, true)
                    }
                    g.encoder.add(gzipped.piece)
                    out.append(gzipped.framed)
                case .finish:
                    out.append(HTTPStreamChunk.frame(g.encoder.trailer))
                    out.append(Self.lastChunk)
                }
            }
            return (out, finished)
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

