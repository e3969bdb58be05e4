/// The decisions of one HTTP/1.1 server connection, apart from its socket.
///
/// Events in, actions out, after SwiftNIO's `HTTPServerPipelineHandler`. It reads no clock,
/// touches no socket and starts no thread. Its driver (`HTTPConnection`) reports events, each
/// with the loop's time, then calls `nextAction` and performs what it answers until the
/// answer is `.wait`. Actions come one at a time: a handler answering at once (inside
/// `.dispatch`) is seen before the next request is parsed, and no list of actions is built
/// per event. The bytes to send wait in the machine's output queue, taken from there.
///
/// Promises:
/// - Responses leave in request order, whatever order the handler answers in.
/// - A safe request pipelined behind unsafe ones reaches the handler only once they are
///   answered (RFC 9112 §9.3.2 allows running pipelined requests together only when all are
///   safe); unsafe ones go on at once, in order, so pipelined edits can share one commit.
/// - No request is dispatched after the connection has decided to close: after a
///   `Connection: close` (or an HTTP/1.0 request without keep-alive), a parse error, a
///   timeout or shutdown; what was pipelined after a closing response is dropped.
/// - `100 Continue` goes out only once every earlier response has, and never once the whole
///   request has arrived.
/// - After the last response the connection half-closes and lingers, reading and discarding
///   until the peer closes (at most two seconds), so the peer gets the response rather than
///   a reset.
/// - A client too slow to send its head or body, or to take its responses, is cut off; an
///   idle connection is closed only when no request is in flight.
struct HTTPConnectionStateMachine {
    /// A request whose response is awaited or being written, in arrival order.
    struct Slot {
        var sequence: Int
        var isHead: Bool
        var keepAlive: Bool
        /// HTTP/1.0 asked for keep-alive: the response says `Connection: keep-alive`.
        var keepAliveHeader: Bool
        var method: HTTPMethod
        var target: String
        /// When the request was read, for the access log.
        var started: UInt64
        var response: HTTPResponse?
    }

    /// What the driver does next; after each, it asks for the next action.
    enum Action {
        /// Calls the handler with request `sequence`; the answer comes back through
        /// `responded(_:_:)`, at once or later.
        case dispatch(HTTPRequest, sequence: Int)
        /// The response to `slot` went into the output (`bytes` of it): the access log's line.
        case log(Slot, status: Int, bytes: Int)
        /// Like `.log`, for a streamed body whose head is in the output: the driver creates the
        /// stream's shared state, hands `start` its writer and reports its chunks through
        /// `streamed(_:finished:)`.
        case startStream(@Sendable (HTTPStreamWriter) -> Void, gzip: Bool, Slot, status: Int, bytes: Int)
        /// Writes `withUnsentBytes` to the socket, reporting each write with `wrote(_:now:)`,
        /// then `writeBlocked(now:)` or `writeDrained(now:)`.
        case write
        /// Shuts down the sending side (after TLS close_notify) and reads and discards input.
        case halfCloseAndLinger
        /// Closes the socket; the machine ignores every later event.
        case close
        /// Nothing more until the next event. Time to update the socket's interest from
        /// `wantsToRead` and `hasUnsent`.
        case wait
    }

    /// How far the connection is on its way to closing; it only ever moves forward.
    enum Lifecycle: Int, Comparable {
        /// Reading and answering requests.
        case open
        /// No further requests are read; the ones already read are still answered.
        case inputDone
        /// Once the output is drained with no request left, the connection lingers.
        case closeWhenDrained
        /// Output shut down; input is discarded until the peer closes.
        case lingering
        case closed

        static func < (a: Lifecycle, b: Lifecycle) -> Bool { a.rawValue < b.rawValue }
    }

    /// Work owed before the machine waits, most urgent first. Parsing is followed by
    /// serializing, serializing by writing.
    enum Step: Int, Comparable {
        case close, parse, serialize, flush, linger, idle

        static func < (a: Step, b: Step) -> Bool { a.rawValue < b.rawValue }
    }

    static let maxPipelined = 32
    static let maxBufferedOutput = 1 << 20

    var parser: HTTPRequestParser
    /// What is to be sent; the serializer appends to it in place.
    var output = HTTPOutputQueue()
    /// Requests in arrival order; those before `slotsHead` are answered and written.
    var slots: [Slot] = []
    var slotsHead = 0
    var nextSequence = 0
    private(set) var lifecycle = Lifecycle.open
    private var step = Step.idle
    /// A streamed body is being written: later responses wait for its end.
    var streaming = false
    /// Shutdown began: every response says `Connection: close`, idle means closed.
    private(set) var shuttingDown = false
    private(set) var peerHasClosed = false
    /// A parse pass is under way: answers given meanwhile are only recorded.
    var processing = false
    /// Parsing stopped at the pipeline limit (or behind unsafe requests) with bytes buffered.
    var inputHeldBack = false
    /// A finished stream asks for a parse pass once its end has been written out.
    private var parseAfterFlush = false
    /// `Expect: 100-continue` seen; the interim answer goes out once every earlier response has.
    var continuePending = false
    /// Requests with unsafe methods handed to the handler and not yet answered. While there
    /// are any, a later pipelined safe request waits in `deferred` and nothing more is read.
    var unsafeInFlight = 0
    var deferred: HTTPRequest?
    var timers: HTTPConnectionTimers
    /// A read's byte count, counted towards the body once its parse pass is over (nil: none).
    private var unnotedRead: Int?

    init(limits: HTTPLimits, remoteAddress: String, timeouts: ServerCore.TimeoutNanos, now: UInt64) {
        parser = HTTPRequestParser(limits: limits, remoteAddress: remoteAddress)
        timers = HTTPConnectionTimers(timeouts: timeouts, now: now)
    }

    var pendingCount: Int { slots.count - slotsHead }
    var waitsForUnsafe: Bool { deferred != nil && unsafeInFlight > 0 }

    // The driver's questions are `mutating get`: asked of the machine where the connection
    // keeps it, they read it in place; a plain getter copies the whole machine (a retain and
    // a release of each of its references), and they are asked several times per request.
    var isClosed: Bool { mutating get { lifecycle == .closed } }
    var isLingering: Bool { mutating get { lifecycle == .lingering } }
    var hasUnsent: Bool { mutating get { !output.isEmpty } }
    var unsentByteCount: Int { mutating get { output.count } }

    /// Whether the socket should be watched for input: not while requests are held back
    /// (pipeline limit, unsafe requests in flight, too much output unsent) or after the peer's EOF.
    var wantsToRead: Bool {
        mutating get {
            if peerHasClosed { return false }
            if lifecycle == .lingering { return true }
            return lifecycle == .open && !waitsForUnsafe && pendingCount < Self.maxPipelined
                && output.count < Self.maxBufferedOutput
        }
    }

    mutating func withUnsentBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        output.withUnsentBytes(body)
    }

    // MARK: events

    /// Bytes arrived from the peer.
    mutating func received(_ bytes: UnsafeRawBufferPointer, now: UInt64) {
        guard lifecycle != .closed else { return }
        timers.read(now: now, startsHead: parser.isIdle)
        let inBody = parser.isReadingBody
        parser.append(bytes)
        unnotedRead = inBody ? bytes.count : 0
        schedule(.parse)
    }

    /// The handler answered request `sequence`.
    mutating func responded(_ sequence: Int, _ response: HTTPResponse) {
        guard lifecycle != .closed, let index = slotIndex(of: sequence) else { return }
        slots[index].response = response
        if !slots[index].method.isSafe {
            unsafeInFlight -= 1
            // What the unsafe request held back may be parsed now (on an already-answered
            // head slot, the parse pass's serializing sends it).
            if unsafeInFlight == 0 && deferred != nil && !processing && lifecycle == .open {
                schedule(.parse)
                return
            }
        }
        if processing || index != slotsHead { return }
        schedule(.serialize)
    }

    /// The stream's writers queued `chunks`; `finished`: its last chunk is among them.
    mutating func streamed(_ chunks: [[UInt8]], finished: Bool) {
        guard streaming, lifecycle != .closed else { return }
        output.append(chunks: chunks)
        guard finished else {
            schedule(.flush)
            return
        }
        streaming = false
        popSlot(keepAlive: slots[slotsHead].keepAlive && !shuttingDown)
        parseAfterFlush = true
        schedule(.serialize)
    }

    /// The socket can take more output.
    mutating func writable() {
        guard lifecycle != .closed else { return }
        schedule(.flush)
    }

    /// The socket took the first `n` bytes `withUnsentBytes` offered.
    mutating func wrote(_ n: Int, now: UInt64) {
        output.consume(n)
        timers.wrote(n, now: now)
    }

    /// The socket refused more output; `writable()` will follow.
    mutating func writeBlocked(now: UInt64) {
        timers.writeBlocked(now: now)
        afterFlush()
    }

    /// The socket took everything queued.
    mutating func writeDrained(now: UInt64) {
        guard lifecycle != .closed else { return }
        drained(now: now)
    }

    /// The peer sent EOF: what it asked is still answered (a half-close still wants its
    /// answers), unless it was streaming or sending a request.
    mutating func peerClosed() {
        guard lifecycle != .closed else { return }
        peerHasClosed = true
        if lifecycle == .lingering || streaming || pendingCount == 0 || !parser.isIdle {
            schedule(.close)
            return
        }
        stopReading(closeWhenDrained: true)
    }

    /// Shutdown began (the driver finishes an open-ended stream itself): a busy connection
    /// closes after its last response, an idle one once it has been quiet for
    /// `HTTPConnectionTimers.shutdownQuiet` (at once if it already was). A request that a
    /// balancer sent on it in the meantime is answered, with `Connection: close`, rather
    /// than lost to a close that crossed it on the wire.
    mutating func beginShutdown(now: UInt64) {
        guard lifecycle != .closed else { return }
        shuttingDown = true
        let idle = pendingCount == 0 && output.isEmpty && !streaming && parser.isIdle
        if idle && lifecycle != .lingering && timers.idleExpired(now: now, shuttingDown: true) { schedule(.close) }
    }

    /// The driver closed the socket (an error, or the loop ending); false if it was closed already.
    mutating func close() -> Bool {
        if lifecycle == .closed { return false }
        lifecycle = .closed
        streaming = false
        step = .idle
        return true
    }

    /// The timer fired: cuts off whoever has taken too long.
    mutating func tick(now: UInt64) {
        switch lifecycle {
        case .closed: return
        case .lingering:
            if timers.lingerExpired(now: now) { schedule(.close) }
            return
        default: break
        }
        if hasUnsent {
            if timers.outputStalled(now: now) { schedule(.close) }
            return
        }
        if streaming || pendingCount > 0 { return }
        if parser.isIdle {
            if timers.silentTooLong(now: now) || timers.idleExpired(now: now, shuttingDown: shuttingDown) { schedule(.close) }
        } else if parser.isReadingBody {
            if timers.bodyOverdue(now: now) { timedOut("body_timeout", "the request body did not arrive in time", now: now) }
        } else if timers.headOverdue(now: now) {
            timedOut("header_timeout", "the request head did not arrive in time", now: now)
        }
    }

    // MARK: actions

    /// What the driver does next, at `now`; `date` is the `Date` field's value.
    mutating func nextAction(now: UInt64, date: [UInt8]) -> Action {
        while true {
            switch step {
            case .close:
                _ = close()
                return .close
            case .parse:
                if let dispatch = nextRequest(now: now) { return dispatch }
                processing = false
                step = .serialize
            case .serialize:
                if let serialized = nextResponse(now: now, date: date) { return serialized }
                endSerializing(now: now)
                step = .flush
            case .flush:
                guard output.isEmpty else {
                    step = .idle
                    return .write
                }
                drained(now: now)
            case .linger:
                step = .idle
                parseAfterFlush = false
                if peerHasClosed {
                    _ = close()
                    return .close
                }
                lifecycle = .lingering
                timers.lingers(now: now)
                return .halfCloseAndLinger
            case .idle:
                if let bytes = unnotedRead {
                    unnotedRead = nil
                    timers.noteBody(bytes, readingBody: parser.isReadingBody, now: now)
                }
                return .wait
            }
        }
    }

    /// Asks for `work` unless something more urgent (which leads to it) is owed already.
    private mutating func schedule(_ work: Step) {
        if work == .parse {
            processing = true
            inputHeldBack = false
        }
        if work < step { step = work }
    }

    private mutating func drained(now: UInt64) {
        output.reset()
        timers.drained(now: now)
        if lifecycle >= .closeWhenDrained && pendingCount == 0 && !streaming {
            step = .linger
            return
        }
        // Requests held back by the pipeline limit or by output may proceed now.
        if inputHeldBack && !processing && lifecycle == .open && pendingCount < Self.maxPipelined
            && !streaming && !waitsForUnsafe {
            startParsing()
            return
        }
        afterFlush()
    }

    private mutating func afterFlush() {
        step = .idle
        if parseAfterFlush {
            parseAfterFlush = false
            if lifecycle == .open && !processing { startParsing() }
        }
    }

    private mutating func startParsing() {
        processing = true
        inputHeldBack = false
        step = .parse
    }

    private mutating func timedOut(_ code: String, _ message: String, now: UInt64) {
        fail(HTTPParseError(.requestTimeout, code, message), now: now)
        schedule(.serialize)
    }

    /// Marks the connection as reading no further requests (never moving it back).
    mutating func stopReading(closeWhenDrained: Bool = false) {
        lifecycle = max(lifecycle, closeWhenDrained ? .closeWhenDrained : .inputDone)
    }
}
