/// Sends a request on to another server and answers the caller with what comes back, as if
/// this server had given it (a cluster's node forwarding a request to the node that owns its
/// document, docs/scale-out.md): same status, same fields but the hop's own, same body; an
/// event stream is relayed piece by piece while it lasts. Runs on the caller's event loop,
/// over that loop's pool of kept-alive connections (`HTTPClientPool`); nothing waits.
///
/// Every field of the request travels unchanged (credentials, `Idempotency-Key`,
/// `Last-Event-ID`) but the hop-by-hop ones; the hop asks for no compression, so this
/// server's own content coding applies on the way out, as for its own answers.
public struct HTTPRelay: Sendable {
    /// Most bytes of a whole (not streamed) answer this node holds while relaying it: the
    /// owner's largest answers are a page of changes or a text, both far smaller.
    public static let maxRelayedBytes = 64 << 20
    /// Most bytes of a relayed stream waiting for a slow caller; past it the caller is cut
    /// off, as a slow subscriber of this node's own streams is.
    static let maxStreamBacklog = 4 << 20

    /// Fields of the answer that concern the hop it came over, or that this node's connection
    /// writes itself. (`Content-Encoding` is relayed: the hop asked for none, so an upstream
    /// that sends one anyway means it.)
    static let answerFieldsNotRelayed: Set<String> = [
        "connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection",
        "content-length", "date",
    ]

    /// What the caller gets when the upstream gave no complete answer, told why.
    let unreachable: @Sendable (String) -> HTTPResponse
    /// Asked, when the request never reached the upstream, whether the caller takes it over
    /// (sends it elsewhere, answers it): then the relay answers nothing.
    let takeOverUnsent: (@Sendable (HTTPClientError) -> Bool)?

    /// Sees each piece of a relayed stream (whole events) before the caller does, with the
    /// caller's stream, and answers what of it the caller gets.
    let streamed: (@Sendable (_ events: [UInt8], _ to: HTTPStreamWriter) -> [UInt8])?

    public init(unreachable: @escaping @Sendable (String) -> HTTPResponse = HTTPRelay.badGateway,
                takeOverUnsent: (@Sendable (HTTPClientError) -> Bool)? = nil,
                streamed: (@Sendable (_ events: [UInt8], _ to: HTTPStreamWriter) -> [UInt8])? = nil) {
        self.unreachable = unreachable
        self.takeOverUnsent = takeOverUnsent
        self.streamed = streamed
    }

    /// The index just past the last `\n\n` in `bytes` (the end of the last whole event of a
    /// stream); nil if there is none.
    public static func lastEventEnd(_ bytes: [UInt8]) -> Int? {
        var i = bytes.count - 1
        while i > 0 {
            if bytes[i] == 0x0A && bytes[i - 1] == 0x0A { return i + 1 }
            i -= 1
        }
        return nil
    }

    public static let badGateway: @Sendable (String) -> HTTPResponse = { why in
        .error(HTTPStatus(502), code: "bad_gateway", message: "the upstream gave no answer (\(why))")
    }

    /// Sends `request` to `upstream`, with the fields of `replacing` in place of its own of the
    /// same names, and answers `responder` with what comes back (`unreachable` when no complete
    /// answer came). On the pool's loop.
    public func relay(_ request: HTTPRequest, to upstream: HTTPUpstream, replacing extra: HTTPHeaders = [:], responder: HTTPResponder) {
        guard let pool = HTTPClientPool.current else {
            return responder.send(unreachable("no client pool on this thread"))
        }
        var headers = request.headers
        headers.set("Accept-Encoding", "identity")
        for field in extra { headers.set(field.name, field.value) }
        let stream = request.headers["Accept"].map { $0.contains("text/event-stream") } ?? false
        let outgoing = HTTPClientRequest(method: request.method, target: request.target, headers: headers,
                                         body: request.body, bodyIdleTimeout: stream ? nil : .seconds(30), longLived: stream)
        let relay = Relay(responder: responder, unreachable: unreachable, takeOverUnsent: takeOverUnsent, streamed: streamed)
        relay.task = pool.send(outgoing, to: upstream,
                               onHead: { relay.head($0) }, onBody: { relay.body($0) }, onEnd: { relay.end($0) })
    }

    /// One relayed answer, on the loop: the head decides whether it is streamed.
    private final class Relay: @unchecked Sendable {
        let responder: HTTPResponder
        let unreachable: @Sendable (String) -> HTTPResponse
        var task: HTTPClientTask?
        private var status = HTTPStatus(502)
        private var headers = HTTPHeaders()
        private var bytes: [UInt8] = []
        private var writer: HTTPStreamWriter?
        private var streaming = false
        private var pending: [[UInt8]] = []
        private var ended = false

        let takeOverUnsent: (@Sendable (HTTPClientError) -> Bool)?
        let streamed: (@Sendable ([UInt8], HTTPStreamWriter) -> [UInt8])?

        init(responder: HTTPResponder, unreachable: @escaping @Sendable (String) -> HTTPResponse,
             takeOverUnsent: (@Sendable (HTTPClientError) -> Bool)?, streamed: (@Sendable ([UInt8], HTTPStreamWriter) -> [UInt8])?) {
            self.responder = responder
            self.unreachable = unreachable
            self.takeOverUnsent = takeOverUnsent
            self.streamed = streamed
        }

        /// Writes whole events to the caller: false if the caller does not keep up.
        private func deliver(_ events: [UInt8], to writer: HTTPStreamWriter) -> Bool {
            let out = streamed.map { $0(events, writer) } ?? events
            return out.isEmpty || writer.write(out)
        }

        func head(_ head: HTTPClientResponseHead) {
            status = HTTPStatus(head.status)
            for field in head.headers where !HTTPRelay.answerFieldsNotRelayed.contains(field.name.lowercased()) {
                headers.add(field.name, field.value)
            }
            guard head.headers["content-type"]?.hasPrefix("text/event-stream") == true else { return }
            streaming = true
            responder.send(HTTPResponse(status: status, headers: headers, body: .stream { [self] writer in
                self.writer = writer
                writer.onClose { [weak self] in self?.task?.cancel() }
                for piece in pending { _ = deliver(piece, to: writer) }
                pending = []
                if ended { writer.finish() }
            }))
        }

        /// Bytes of the stream after its last whole event (`\n\n`): an event is relayed whole,
        /// never split over two pieces, as the upstream wrote it.
        private var partial: [UInt8] = []

        func body(_ piece: [UInt8]) {
            if streaming {
                partial += piece
                guard let end = HTTPRelay.lastEventEnd(partial) else {
                    if partial.count > HTTPRelay.maxStreamBacklog { cut() }
                    return
                }
                let whole = Array(partial[..<end])
                partial.removeFirst(end)
                guard let writer else { return pending.append(whole) }
                if writer.bufferedByteCount > HTTPRelay.maxStreamBacklog || !deliver(whole, to: writer) { cut() }
                return
            }
            bytes += piece
            if bytes.count > HTTPRelay.maxRelayedBytes {
                task?.cancel()
                responder.send(unreachable("its answer was larger than this node relays"))
            }
        }

        /// A stream the caller does not keep up with (or an event too large) is cut off, as
        /// a slow subscriber of this node's own streams is.
        private func cut() {
            task?.cancel()
            writer?.finish()
        }


        func end(_ result: Result<Void, HTTPClientError>) {
            if streaming {
                ended = true
                writer?.finish()
                return
            }
            switch result {
            case .success:
                responder.send(HTTPResponse(status: status, headers: headers, body: .bytes(bytes)))
            case .failure(let error):
                if error.neverSent, !error.answerStarted, takeOverUnsent?(error) == true { return }
                responder.send(unreachable(error.answerStarted ? "its answer broke off" : "\(error.kind)"))
            }
        }
    }
}
