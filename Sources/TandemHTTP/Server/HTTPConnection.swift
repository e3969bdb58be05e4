import CLinux
import Glibc
import Logging

/// One client connection: reads and parses requests, calls the handler, and writes
/// responses in request order. Loop-confined: every method runs on `loop`'s thread
/// (responders and stream writers from other threads hop over through `loop.execute`).
///
/// Its state is marked `@exclusivity(unchecked)`: loop confinement means no two accesses
/// ever overlap (the compiler's static checks still run), and the runtime's dynamic checks
/// on every property access were about 8% of a small request's instructions.
final class HTTPConnection: @unchecked Sendable {
    /// A request whose response is awaited or being written, in arrival order.
    struct Slot {
        var sequence: Int
        var isHead: Bool
        var keepAlive: Bool
        var keepAliveHeader: Bool
        var method: HTTPMethod
        var target: String
        var started: UInt64
        var response: HTTPResponse?
    }

    unowned let loop: EventLoop
    let transport: Transport
    let fd: Int32
    @exclusivity(unchecked) private var parser: HTTPRequestParser
    @exclusivity(unchecked) private var out: [UInt8] = []
    @exclusivity(unchecked) private var outOffset = 0
    /// Stream chunks queued ahead of `out` (every byte in them precedes every byte in `out`),
    /// written from the arrays they came in: an event's bytes are one array shared by all its
    /// subscribers' connections.
    @exclusivity(unchecked) private var chunks: [[UInt8]] = []
    @exclusivity(unchecked) private var chunksHead = 0
    @exclusivity(unchecked) private var chunkOffset = 0
    @exclusivity(unchecked) private var chunkBytes = 0
    @exclusivity(unchecked) private var slots: [Slot] = []
    @exclusivity(unchecked) private var slotsHead = 0
    @exclusivity(unchecked) private var nextSequence = 0
    @exclusivity(unchecked) private var stream: StreamState?
    @exclusivity(unchecked) private var streamSlotLogged = false

    @exclusivity(unchecked) private var interest: UInt32 = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
    /// No further requests are read (Connection: close, an error, or shutdown).
    @exclusivity(unchecked) private var inputDone = false
    @exclusivity(unchecked) private var peerClosed = false
    @exclusivity(unchecked) private var closeWhenDrained = false
    @exclusivity(unchecked) private var lingering = false
    @exclusivity(unchecked) private var closed = false
    @exclusivity(unchecked) private var processing = false
    /// Parsing stopped at the pipeline limit with bytes still buffered.
    @exclusivity(unchecked) private var inputHeldBack = false
    @exclusivity(unchecked) private var shuttingDown = false
    /// A TLS read needs the socket writable before it can go on (handshake or key update).
    @exclusivity(unchecked) private var readWaitsForWritable = false
    /// `Expect: 100-continue` seen; the interim answer goes out once every earlier response has.
    @exclusivity(unchecked) private var continuePending = false
    /// Requests with unsafe methods handed to the handler and not yet answered. While there
    /// are any, a later pipelined safe request waits in `deferred` (RFC 9112 §9.3.2 allows
    /// running pipelined requests together only when all are safe): a GET after a POST must
    /// see its effect. Unsafe ones go on at once: the handler gets them in order, and a
    /// client pipelining edits keeps the group commit full instead of paying one commit each.
    @exclusivity(unchecked) private var unsafeInFlight = 0
    @exclusivity(unchecked) private var deferred: HTTPRequest?
    /// A safe request waits for earlier unsafe ones: nothing more is read meanwhile.
    private var waitsForUnsafe: Bool { deferred != nil && unsafeInFlight > 0 }

    @exclusivity(unchecked) private var headStarted: UInt64 = 0
    @exclusivity(unchecked) private var lastRead: UInt64
    @exclusivity(unchecked) private var lastWriteProgress: UInt64
    @exclusivity(unchecked) private var lingerStarted: UInt64 = 0
    /// When the current body began arriving (0: no body), and how much of it has come since.
    @exclusivity(unchecked) private var bodyStarted: UInt64 = 0
    @exclusivity(unchecked) private var bodyReceived = 0
    /// When the socket last refused output with more queued (0: not since the queue emptied),
    /// and how much the peer has taken since.
    @exclusivity(unchecked) private var writeBlockedSince: UInt64 = 0
    @exclusivity(unchecked) private var writtenWhileBlocked = 0

    private static let maxPipelined = 32
    private static let maxBufferedOutput = 1 << 20

    init(loop: EventLoop, transport: Transport, remoteAddress: String) {
        self.loop = loop
        self.transport = transport
        self.fd = transport.fileDescriptor
        self.parser = HTTPRequestParser(limits: loop.server.configuration.limits, remoteAddress: remoteAddress)
        lastRead = loop.now
        lastWriteProgress = loop.now
        out.reserveCapacity(4096)
    }

    private var pendingCount: Int { slots.count - slotsHead }
    private var isIdle: Bool { pendingCount == 0 && !hasUnsent && stream == nil && parser.isIdle }
    private var hasUnsent: Bool { chunkBytes > 0 || outOffset < out.count }
    private var unsentBytes: Int { chunkBytes + out.count - outOffset }

    // MARK: events

    func handle(events: UInt32) {
        if events & (EPOLLERR.rawValue) != 0 { close(); return }
        if events & EPOLLOUT.rawValue != 0 {
            if readWaitsForWritable {
                readWaitsForWritable = false
                readAvailable()
                if closed { return }
            }
            flush()
            if closed { return }
        }
        if events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLRDHUP.rawValue) != 0 {
            readAvailable()
        }
    }

    private func readAvailable() {
        if lingering { discardInput(); return }
        let buffer = loop.readBuffer
        // Bytes OpenSSL has already decrypted are invisible to epoll: take them now, or
        // pipelined requests in the same TLS record would wait for the client's next packet.
        repeat {
            switch transport.read(into: buffer) {
            case .transferred(let n):
                lastRead = loop.now
                if parser.isIdle { headStarted = loop.now }
                let inBody = parser.isReadingBody
                parser.append(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
                processInput()
                noteBodyProgress(inBody ? n : 0)
            case .wouldBlock:
                if transport.readNeedsWritable {
                    readWaitsForWritable = true
                    updateInterest()
                }
                return
            case .closed:
                peerGone()
                return
            case .failed:
                close()
                return
            }
        } while !closed && !lingering && transport.hasBufferedInput
    }

    private func noteBodyProgress(_ bytes: Int) {
        if !parser.isReadingBody {
            bodyStarted = 0
        } else if bodyStarted == 0 {
            bodyStarted = loop.now
            bodyReceived = 0
        } else {
            bodyReceived += bytes
        }
    }

    /// While lingering: raw bytes thrown away (after TLS close_notify nothing is decrypted),
    /// until the peer's EOF.
    private func discardInput() {
        let buffer = loop.readBuffer
        let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
        if n > 0 { lastRead = loop.now; return }
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return }
        close()
    }

    /// The peer sent EOF: finish what was asked (a half-close still wants its answers), unless streaming.
    private func peerGone() {
        peerClosed = true
        if lingering || stream != nil || pendingCount == 0 || !parser.isIdle {
            close()
            return
        }
        inputDone = true
        closeWhenDrained = true
        updateInterest()
    }

    private func processInput() {
        processing = true
        inputHeldBack = false
        while !inputDone {
            if let request = deferred {
                guard unsafeInFlight == 0 else {
                    inputHeldBack = true
                    break
                }
                deferred = nil
                dispatch(request)
                continue
            }
            if pendingCount >= Self.maxPipelined {
                inputHeldBack = true
                break
            }
            let next: HTTPRequestParser.Event?
            do {
                next = try parser.next()
            } catch {
                fail(error)
                break
            }
            guard let event = next else { break }
            // Consumed: the request moves out of the event instead of being copied from it.
            switch consume event {
            case .continueExpected:
                continuePending = true
            case .request(let request):
                headStarted = loop.now
                if request.method.isSafe && unsafeInFlight > 0 {
                    deferred = request
                } else {
                    dispatch(request)
                }
            }
        }
        processing = false
        writeReady()
        flush()
    }

    private func fail(_ error: HTTPParseError) {
        inputDone = true
        continuePending = false
        let slot = Slot(sequence: nextSequence, isHead: false, keepAlive: false, keepAliveHeader: false,
                        method: "-", target: "-", started: loop.now, response: error.response)
        nextSequence += 1
        slots.append(slot)
    }

    private func dispatch(_ request: __owned HTTPRequest) {
        let server = loop.server
        let keepAlive: Bool
        if request.version.minor == 0 {
            keepAlive = request.headers.hasToken("keep-alive", in: "Connection")
        } else {
            keepAlive = !request.headers.hasToken("close", in: "Connection")
        }
        // The body is here already: an interim answer would only be noise.
        continuePending = false
        if !request.method.isSafe { unsafeInFlight += 1 }
        let sequence = nextSequence
        nextSequence += 1
        slots.append(Slot(
            sequence: sequence, isHead: request.method == .head,
            keepAlive: keepAlive && !shuttingDown, keepAliveHeader: request.version.minor == 0,
            method: request.method, target: request.target, started: loop.now, response: nil))
        if !keepAlive || shuttingDown { inputDone = true }

        let loop = self.loop
        let responder: HTTPResponder
        if let filter = server.configuration.responseFilter {
            let method = request.method, headers = request.headers
            responder = HTTPResponder { [self] response in
                let filtered = filter(method, headers, response)
                if loop.inLoop { complete(sequence, filtered) } else { loop.execute { self.complete(sequence, filtered) } }
            }
        } else {
            responder = HTTPResponder { [self] response in
                if loop.inLoop { complete(sequence, response) } else { loop.execute { self.complete(sequence, response) } }
            }
        }
        server.handler(request, responder)
    }

    private func complete(_ sequence: Int, _ response: HTTPResponse) {
        if closed { return }
        let index = slotsHead + (sequence - (slotsHead < slots.count ? slots[slotsHead].sequence : sequence))
        guard index >= slotsHead, index < slots.count, slots[index].sequence == sequence else { return }
        slots[index].response = response
        if !slots[index].method.isSafe {
            unsafeInFlight -= 1
            // What the unsafe request held back may be parsed now (on an already-answered
            // head slot, processInput's own writeReady sends it).
            if unsafeInFlight == 0 && deferred != nil && !processing && !inputDone {
                processInput()
                return
            }
        }
        if processing || index != slotsHead { return }
        writeReady()
        flush()
    }

    /// Serializes every answered request at the front of the queue, in order.
    private func writeReady() {
        while stream == nil, slotsHead < slots.count, let response = slots[slotsHead].response {
            let slot = slots[slotsHead]
            slots[slotsHead].response = nil
            let keepAlive = slot.keepAlive && !shuttingDown
            let connection: StaticString? = keepAlive ? (slot.keepAliveHeader ? "keep-alive" : nil) : "close"
            let before = out.count
            switch response.body {
            case .bytes(let body):
                let allowsBody = response.status.allowsBody
                ResponseSerializer.appendHead(
                    status: response.status, headers: response.headers,
                    framing: allowsBody ? .length(body.count) : .none,
                    connection: connection, date: loop.date.bytes, to: &out)
                if allowsBody && !slot.isHead { out.append(contentsOf: body) }
                popSlot(slot, status: response.status.code, bytes: out.count - before, keepAlive: keepAlive)
            case .stream(let start):
                if slot.isHead || !response.status.allowsBody {
                    ResponseSerializer.appendHead(
                        status: response.status, headers: response.headers, framing: .none,
                        connection: connection, date: loop.date.bytes, to: &out)
                    popSlot(slot, status: response.status.code, bytes: out.count - before, keepAlive: keepAlive)
                    continue
                }
                ResponseSerializer.appendHead(
                    status: response.status, headers: response.headers, framing: .chunked,
                    connection: connection, date: loop.date.bytes, to: &out)
                let loop = self.loop
                // Set by `ContentEncoding.negotiate` for a client that takes gzip.
                let gzip = response.headers["Content-Encoding"].map { HTTPHeaders.namesEqual($0, "gzip") } ?? false
                let state = StreamState(maxBuffered: loop.server.configuration.maxStreamBufferBytes, gzip: gzip) { [self] in
                    loop.execute { self.pumpStream() }
                }
                stream = state
                streamSlotLogged = false
                log(slot, status: response.status.code, bytes: out.count - before)
                start(state.makeWriter())
            }
        }
        if slotsHead == slots.count && slotsHead > 0 {
            slots.removeAll(keepingCapacity: true)
            slotsHead = 0
        }
        if continuePending && pendingCount == 0 && stream == nil && !inputDone {
            continuePending = false
            out.append(contentsOf: "HTTP/1.1 100 Continue\r\n\r\n".utf8)
            // The client waited for this before sending the body: its clocks start now.
            lastRead = loop.now
            bodyStarted = loop.now
            bodyReceived = 0
        }
    }

    private func popSlot(_ slot: Slot, status: Int, bytes: Int, keepAlive: Bool) {
        slotsHead += 1
        log(slot, status: status, bytes: bytes)
        if !keepAlive {
            closeWhenDrained = true
            inputDone = true
            // Whatever was pipelined after a closing response is dropped.
            slots.removeSubrange(slotsHead...)
        }
    }

    private func log(_ slot: Slot, status: Int, bytes: Int) {
        let logger = loop.server.configuration.logger
        guard logger.logLevel <= .info else { return }
        let micros = (MonotonicClock.now() &- slot.started) / 1000
        // Written straight into one string's storage: interpolation grew it piece by piece.
        let method = slot.method.rawValue, target = slot.target
        let line = String(unsafeUninitializedCapacity: method.utf8.count + target.utf8.count + 72) { buffer in
            var out = ByteCursor(buffer)
            out.put(method)
            out.put(UInt8(ascii: " "))
            out.put(target)
            out.put(UInt8(ascii: " "))
            out.putDecimal(status)
            out.put(UInt8(ascii: " "))
            out.putDecimal(bytes)
            out.put(UInt8(ascii: "B"))
            out.put(UInt8(ascii: " "))
            out.putDecimal(Int(micros))
            out.put(UInt8(ascii: "u"))
            out.put(UInt8(ascii: "s"))
            return out.count
        }
        // No source: swift-log derives it only for a handler that asks, and ours does not.
        logger.info(Logger.Message(stringLiteral: line))
    }

    /// Moves a stream's queued chunks into the output; ends the slot when the body is complete.
    private func pumpStream() {
        guard let state = stream, !closed else { return }
        let (taken, finished) = state.take()
        if !taken.isEmpty && outOffset < out.count {
            // What `out` holds (the stream's head) goes first.
            chunks.append(Array(out[outOffset...]))
            chunkBytes += out.count - outOffset
            out.removeAll(keepingCapacity: true)
            outOffset = 0
        }
        for chunk in taken {
            chunks.append(chunk)
            chunkBytes += chunk.count
        }
        if finished {
            stream = nil
            state.close()
            let slot = slots[slotsHead]
            slotsHead += 1
            if !(slot.keepAlive && !shuttingDown) {
                closeWhenDrained = true
                inputDone = true
                slots.removeSubrange(slotsHead...)
            }
            writeReady()
        }
        flush()
        if finished && !closed && !inputDone && !processing { processInput() }
    }

    // MARK: output

    private func flush() {
        if closed { return }
        while hasUnsent {
            let fromChunk = chunksHead < chunks.count
            let result = fromChunk
                ? chunks[chunksHead].withUnsafeBytes { transport.write(UnsafeRawBufferPointer(rebasing: $0[chunkOffset...])) }
                : out.withUnsafeBytes { transport.write(UnsafeRawBufferPointer(rebasing: $0[outOffset...])) }
            switch result {
            case .transferred(let n):
                if fromChunk {
                    chunkOffset += n
                    chunkBytes -= n
                    if chunkOffset == chunks[chunksHead].count {
                        chunks[chunksHead] = []
                        chunksHead += 1
                        chunkOffset = 0
                    }
                } else {
                    outOffset += n
                }
                lastWriteProgress = loop.now
                if writeBlockedSince != 0 { writtenWhileBlocked += n }
            case .wouldBlock:
                if writeBlockedSince == 0 {
                    writeBlockedSince = loop.now
                    writtenWhileBlocked = 0
                }
                stream?.unsent.store(unsentBytes, ordering: .relaxed)
                updateInterest()
                return
            case .closed, .failed:
                close()
                return
            }
        }
        out.removeAll(keepingCapacity: out.capacity <= 64 * 1024)
        outOffset = 0
        chunks.removeAll(keepingCapacity: true)
        chunksHead = 0
        writeBlockedSince = 0
        stream?.unsent.store(0, ordering: .relaxed)
        lastWriteProgress = loop.now
        if closeWhenDrained && pendingCount == 0 && stream == nil {
            startLingering()
            return
        }
        updateInterest()
        // Requests held back by the pipeline limit or by output may proceed now.
        if inputHeldBack && !processing && !inputDone && pendingCount < Self.maxPipelined && stream == nil && !waitsForUnsafe {
            processInput()
        }
    }

    private func updateInterest() {
        if closed { return }
        var want: UInt32 = 0
        // A TLS read that must write first would only spin on readability.
        let readable = !readWaitsForWritable
            && (lingering || (!inputDone && !waitsForUnsafe && pendingCount < Self.maxPipelined
                              && unsentBytes < Self.maxBufferedOutput))
        if readable && !peerClosed { want |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
        if hasUnsent || readWaitsForWritable { want |= EPOLLOUT.rawValue }
        if want != interest {
            interest = want
            loop.modify(fd, events: want)
        }
    }

    /// After the last response: half-close (after TLS close_notify) and read until the peer
    /// closes, so it gets the response instead of a reset caused by unread request bytes.
    private func startLingering() {
        if peerClosed { close(); return }
        lingering = true
        lingerStarted = loop.now
        transport.shutdownOutput()
        updateInterest()
    }

    func close() {
        if closed { return }
        closed = true
        transport.close()
        loop.removed(self, fd: fd)
        if let state = stream {
            stream = nil
            state.close()
        }
    }

    // MARK: timeouts and shutdown

    func checkTimeouts(now: UInt64) {
        if closed { return }
        let t = loop.server.timeouts
        if lingering {
            if now &- lingerStarted > 2_000_000_000 { close() }
            return
        }
        if hasUnsent {
            let stalled = now &- lastWriteProgress > t.write
            let tooSlow = writeBlockedSince != 0 && now &- writeBlockedSince > ServerCore.TimeoutNanos.allowance(
                grace: t.write, bytes: writtenWhileBlocked, rate: t.minimumWriteRate)
            if stalled || tooSlow { close() }
            return
        }
        if stream != nil || pendingCount > 0 { return }
        if parser.isIdle {
            if now &- max(lastRead, lastWriteProgress) > (shuttingDown ? 0 : t.idle) { close() }
        } else if parser.isReadingBody {
            if bodyStarted == 0 {
                bodyStarted = now
                bodyReceived = 0
            }
            let silent = now &- lastRead > t.bodyRead
            let tooSlow = now &- bodyStarted > ServerCore.TimeoutNanos.allowance(
                grace: t.bodyRead, bytes: bodyReceived, rate: t.minimumBodyRate)
            if silent || tooSlow { timedOut("body_timeout", "the request body did not arrive in time") }
        } else if now &- headStarted > t.headerRead {
            timedOut("header_timeout", "the request head did not arrive in time")
        }
    }

    private func timedOut(_ code: String, _ message: String) {
        fail(HTTPParseError(.requestTimeout, code, message))
        writeReady()
        flush()
    }

    func beginShutdown() {
        shuttingDown = true
        if let state = stream {
            // Open-ended streams would hold shutdown for the whole grace period: end them now.
            state.finish()
            _ = state
        }
        if isIdle && !lingering { close() }
    }
}
