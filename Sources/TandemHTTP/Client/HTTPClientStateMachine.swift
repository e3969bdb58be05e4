/// The decisions of one upstream (client) HTTP/1.1 connection, apart from its socket.
///
/// Events in, actions out, like the server's `HTTPConnectionStateMachine`: it reads no clock
/// and touches no socket. Its driver (`HTTPClientConnection`) reports events, each with the
/// loop's time, then takes `nextAction()` until it answers nil and performs each. Actions
/// queue in order; an event reported while the driver is performing one (a callback that
/// starts the next request) only adds to the queue.
///
/// One request at a time, no pipelining: idle → (connecting →) sending → awaiting head →
/// receiving body → idle again if the connection may be reused, closed otherwise.
///
/// Promises:
/// - Exactly one of `.finish` or `.fail` ends each request started, and nothing follows
///   either for that request; a connection closed with no request in flight, or cancelled,
///   says `.close` (and a cancel drops the actions not yet taken).
/// - `.finish(reusable: true)` only when neither side asked to close (RFC 9112 §9.3: a
///   `Connection: close`, or HTTP/1.0 without keep-alive), the body was not delimited by
///   the close, the whole request was written and no stray byte followed the answer.
/// - `.fail` carries whether any byte of the answer had arrived (`answerStarted`): without
///   one, the caller may send an idempotent request again on another connection.
/// - Interim 1xx answers are skipped; answers to HEAD, and 204 and 304, have no body.
/// - Once closed (after `.finish(reusable: false)`, `.fail` or `.close`), every event is ignored.
struct HTTPClientStateMachine {
    /// Nanoseconds, from the pool's configuration.
    struct Timeouts: Sendable, Equatable {
        /// From the socket's creation to an established connection.
        var connect: UInt64
        /// From the last byte of the request written (or the last write progress) to the
        /// end of the answer's head.
        var head: UInt64
        /// How long a reusable connection may wait for its next request.
        var idle: UInt64
    }

    /// What the machine needs of a request: its bytes and how its answer is framed.
    struct Request: Sendable, Equatable {
        var bytes: [UInt8]
        /// False for HEAD: the answer's head is all of it.
        var expectsBody = true
        /// False when the request says `Connection: close`.
        var keepAlive = true
        /// Longest silence between pieces of the body (nil: none).
        var bodyIdleTimeout: UInt64?
    }

    enum State: Sendable, Equatable {
        case connecting, idle, sending, awaitingHead, receivingBody, closed
    }

    enum Action: Sendable, Equatable {
        /// Write these bytes; report what the socket took with `wrote(_:now:)`, and if not
        /// all of it, `writable()` once it can take more.
        case write([UInt8])
        /// The answer's head (interim 1xx skipped).
        case head(HTTPResponseParser.Head)
        /// A piece of the answer's body, de-chunked.
        case body([UInt8])
        /// The answer is complete. `reusable`: the connection is idle and may carry the next
        /// request; otherwise the machine is closed and the socket is to be closed.
        case finish(reusable: Bool)
        /// The request failed; the machine is closed and the socket is to be closed.
        case fail(HTTPClientError)
        /// Close the socket; no request was in flight.
        case close
    }

    let timeouts: Timeouts
    private(set) var state = State.connecting
    private var parser: HTTPResponseParser
    private var request: Request?
    private var output: [UInt8] = []
    private var sent = 0
    private var answerStarted = false
    private var actions: [Action] = []
    private var actionsHead = 0
    private var connectStarted: UInt64
    private var lastWrite: UInt64 = 0
    private var lastRead: UInt64 = 0
    private var idleSince: UInt64 = 0

    /// A machine for a socket whose connect started at `now`.
    init(timeouts: Timeouts, maxHeadBytes: Int, now: UInt64) {
        self.timeouts = timeouts
        parser = HTTPResponseParser(expectsBody: true, maxHeadBytes: maxHeadBytes)
        connectStarted = now
    }

    var isClosed: Bool { state == .closed }
    var isIdle: Bool { state == .idle }
    /// The socket should be watched for writability: connecting, or output waits.
    var wantsWritable: Bool { state == .connecting || (state != .closed && sent < output.count) }

    /// The next thing to do; nil: wait for the next event.
    mutating func nextAction() -> Action? {
        guard actionsHead < actions.count else {
            if !actions.isEmpty {
                actions.removeAll(keepingCapacity: true)
                actionsHead = 0
            }
            return nil
        }
        defer { actionsHead += 1 }
        return actions[actionsHead]
    }

    // MARK: events

    /// Sends `request`: at once on an idle connection, once connected on a connecting one.
    mutating func start(_ request: Request, now: UInt64) {
        precondition(self.request == nil && (state == .idle || state == .connecting), "one request at a time")
        self.request = request
        parser.reset(expectsBody: request.expectsBody)
        answerStarted = false
        if state == .idle { beginSending(now: now) }
    }

    mutating func connected(now: UInt64) {
        guard state == .connecting else { return }
        if request != nil {
            beginSending(now: now)
        } else {
            state = .idle
            idleSince = now
        }
    }

    mutating func connectFailed(_ code: Int32) {
        guard state == .connecting else { return }
        end(request == nil ? .close : .fail(HTTPClientError(.connectFailed(code))))
    }

    /// The socket took `n` more bytes of the request.
    mutating func wrote(_ n: Int, now: UInt64) {
        guard state != .closed, n > 0 else { return }
        sent += n
        lastWrite = now
        if sent >= output.count {
            output = []
            sent = 0
            if state == .sending { state = .awaitingHead }
        }
    }

    /// The socket can take more of the request.
    mutating func writable() {
        guard state != .closed, sent < output.count else { return }
        actions.append(.write(Array(output[sent...])))
    }

    /// Bytes arrived from the upstream.
    mutating func received(_ bytes: [UInt8], now: UInt64) {
        switch state {
        case .closed, .connecting:
            return
        case .idle:
            // Nothing was asked: an unsolicited answer (a 408 before closing) ends the connection.
            end(.close)
        case .sending, .awaitingHead, .receivingBody:
            if !bytes.isEmpty { answerStarted = true }
            lastRead = now
            do {
                handle(try parser.feed(bytes), now: now)
            } catch {
                end(.fail(HTTPClientError(.malformedResponse(error.code), answerStarted: true)))
            }
        }
    }

    /// The upstream closed (EOF) or reset the connection.
    mutating func peerClosed(now: UInt64) {
        switch state {
        case .closed:
            return
        case .connecting, .idle:
            end(request == nil ? .close : .fail(HTTPClientError(.connectionClosed)))
        case .sending, .awaitingHead, .receivingBody:
            do {
                handle(try parser.finish(), now: now)
            } catch {
                end(.fail(HTTPClientError(.connectionClosed, answerStarted: answerStarted)))
            }
        }
    }

    /// A read or write failed with `code` (not EOF, not EAGAIN).
    mutating func ioFailed(_ code: Int32) {
        guard state != .closed else { return }
        end(request == nil ? .close : .fail(HTTPClientError(.io(code), answerStarted: answerStarted)))
    }

    /// The loop's timer: fails or closes whatever has waited too long.
    mutating func tick(now: UInt64) {
        switch state {
        case .closed:
            return
        case .connecting:
            if now &- connectStarted > timeouts.connect {
                end(request == nil ? .close : .fail(HTTPClientError(.connectTimeout)))
            }
        case .idle:
            if now &- idleSince > timeouts.idle { end(.close) }
        case .sending, .awaitingHead:
            if now &- lastWrite > timeouts.head { end(.fail(HTTPClientError(.headTimeout, answerStarted: answerStarted))) }
        case .receivingBody:
            if let limit = request?.bodyIdleTimeout, now &- lastRead > limit {
                end(.fail(HTTPClientError(.bodyTimeout, answerStarted: true)))
            }
        }
    }

    /// The caller gave up on the request: closes, delivering nothing more.
    mutating func cancel() {
        guard state != .closed else { return }
        actions.removeAll()
        actionsHead = 0
        end(.close)
    }

    /// Closes for `error` (the loop stopping): fails the request in flight, if any.
    mutating func abort(_ error: HTTPClientError.Kind) {
        guard state != .closed else { return }
        end(request == nil ? .close : .fail(HTTPClientError(error, answerStarted: answerStarted)))
    }

    // MARK: internals

    private mutating func beginSending(now: UInt64) {
        guard let request else { return }
        state = .sending
        output = request.bytes
        sent = 0
        lastWrite = now
        lastRead = now
        actions.append(.write(output))
    }

    private mutating func handle(_ events: [HTTPResponseParser.Event], now: UInt64) {
        for event in events {
            switch event {
            case .head(let head):
                state = .receivingBody
                actions.append(.head(head))
            case .body(let bytes):
                actions.append(.body(bytes))
            case .end(let reusable):
                let reuse = reusable && request?.keepAlive == true && sent >= output.count && parser.bufferedByteCount == 0
                guard reuse else {
                    end(.finish(reusable: false))
                    return
                }
                request = nil
                output = []
                sent = 0
                state = .idle
                idleSince = now
                actions.append(.finish(reusable: true))
                return
            }
        }
    }

    /// Closes, with `last` as the final action.
    private mutating func end(_ last: Action) {
        state = .closed
        request = nil
        output = []
        sent = 0
        actions.append(last)
    }
}
