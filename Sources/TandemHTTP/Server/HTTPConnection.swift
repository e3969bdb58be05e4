import CLinux
import Glibc
import Logging

/// One client connection's I/O: reads the socket (or TLS transport) into its
/// `HTTPConnectionStateMachine`, performs the actions the machine answers (calling the
/// handler, writing, lingering, closing) and keeps epoll's interest in step with it. Every
/// decision is the machine's. Loop-confined: every method runs on `loop`'s thread
/// (responders and stream writers from other threads hop over through `loop.execute`).
///
/// Its state is marked `@exclusivity(unchecked)`: loop confinement means no two accesses
/// ever overlap (the compiler's static checks still run), so the runtime's dynamic checks
/// on every property access would be paid for nothing (see docs/performance.md).
final class HTTPConnection: @unchecked Sendable {
    unowned let loop: EventLoop
    let transport: Transport
    let fd: Int32
    @exclusivity(unchecked) private var machine: HTTPConnectionStateMachine
    /// The streamed body being written, if any: its chunks are queued by other threads.
    @exclusivity(unchecked) private var stream: StreamState?
    @exclusivity(unchecked) private var interest: UInt32 = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
    /// A TLS read needs the socket writable before it can go on (handshake or key update).
    @exclusivity(unchecked) private var readWaitsForWritable = false
    /// `run` is performing actions: an answer a handler gives at once is only recorded, and
    /// the run under way goes on with it.
    @exclusivity(unchecked) private var running = false
    /// The client this connection counts against in the per-address cap (nil: not counted).
    var countedPeer: IPAddress?

    init(loop: EventLoop, transport: Transport, remoteAddress: String) {
        self.loop = loop
        self.transport = transport
        self.fd = transport.fileDescriptor
        let server = loop.server
        machine = HTTPConnectionStateMachine(
            limits: server.configuration.limits, remoteAddress: remoteAddress,
            timeouts: server.timeouts, now: loop.now)
    }

    // MARK: events

    func handle(events: UInt32) {
        if events & (EPOLLERR.rawValue) != 0 { close(); return }
        if events & EPOLLOUT.rawValue != 0 {
            if readWaitsForWritable {
                readWaitsForWritable = false
                readAvailable()
                if machine.isClosed { return }
            }
            machine.writable()
            run()
            if machine.isClosed { return }
        }
        if events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLRDHUP.rawValue) != 0 {
            readAvailable()
        }
    }

    private func readAvailable() {
        if machine.isLingering { discardInput(); return }
        let buffer = loop.readBuffer
        // Bytes OpenSSL has already decrypted are invisible to epoll: take them now, or
        // pipelined requests in the same TLS record would wait for the client's next packet.
        repeat {
            switch transport.read(into: buffer) {
            case .transferred(let n):
                machine.received(UnsafeRawBufferPointer(rebasing: buffer[..<n]), now: loop.now)
                run()
            case .wouldBlock:
                if transport.readNeedsWritable {
                    readWaitsForWritable = true
                    updateInterest()
                }
                return
            case .closed:
                machine.peerClosed()
                run()
                return
            case .failed:
                close()
                return
            }
        } while !machine.isClosed && !machine.isLingering && transport.hasBufferedInput
    }

    /// While lingering: raw bytes thrown away (after TLS close_notify nothing is decrypted),
    /// until the peer's EOF.
    private func discardInput() {
        let buffer = loop.readBuffer
        let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
        if n > 0 { return }
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return }
        close()
    }

    func checkTimeouts(now: UInt64) {
        machine.tick(now: now)
        run()
    }

    func beginShutdown() {
        machine.beginShutdown(now: loop.now)
        // Open-ended streams would hold shutdown for the whole grace period: end them now.
        stream?.finish()
        run()
    }

    /// Closes at once, whatever is in flight (an error, or the loop ending).
    func close() {
        if machine.close() { release() }
    }

    // MARK: actions

    /// Performs the machine's actions until it waits for the next event.
    private func run() {
        if running { return }
        running = true
        let now = loop.now
        let date = loop.date.bytes
        while true {
            let action = machine.nextAction(now: now, date: date)
            switch consume action {
            case .dispatch(let request, let sequence):
                dispatch(request, sequence)
            case .log(let slot, let status, let bytes):
                log(slot, status: status, bytes: bytes)
            case .startStream(let start, let gzip, let slot, let status, let bytes):
                log(slot, status: status, bytes: bytes)
                startStream(start, gzip: gzip)
            case .write:
                writeOut(now: now)
            case .halfCloseAndLinger:
                transport.shutdownOutput()
            case .close:
                release()
            case .wait:
                running = false
                updateInterest()
                return
            }
        }
    }

    private func dispatch(_ request: __owned HTTPRequest, _ sequence: Int) {
        let server = loop.server
        let loop = self.loop
        var request = request
        request.executor = loop.executor
        let responder = HTTPResponder { [self] response in
            if loop.inLoop { complete(sequence, response) } else { loop.execute { self.complete(sequence, response) } }
        }
        server.handler(request, responder)
    }

    private func complete(_ sequence: Int, _ response: HTTPResponse) {
        machine.responded(sequence, response)
        run()
    }

    private func startStream(_ start: @Sendable (HTTPStreamWriter) -> Void, gzip: Bool) {
        let loop = self.loop
        let state = StreamState(maxBuffered: loop.server.configuration.maxStreamBufferBytes, gzip: gzip) { [self] in
            loop.execute { self.pumpStream() }
        }
        stream = state
        start(state.makeWriter())
    }

    /// Hands a stream's queued chunks to the machine; ends the stream when its body is complete.
    private func pumpStream() {
        guard let state = stream, !machine.isClosed else { return }
        let (taken, finished) = state.take()
        machine.streamed(taken, finished: finished)
        if finished {
            stream = nil
            state.close()
        }
        run()
    }

    private func writeOut(now: UInt64) {
        while machine.hasUnsent {
            switch machine.withUnsentBytes({ transport.write($0) }) {
            case .transferred(let n):
                machine.wrote(n, now: now)
            case .wouldBlock:
                machine.writeBlocked(now: now)
                stream?.unsent.store(machine.unsentByteCount, ordering: .relaxed)
                return
            case .closed, .failed:
                close()
                return
            }
        }
        stream?.unsent.store(0, ordering: .relaxed)
        machine.writeDrained(now: now)
    }

    private func updateInterest() {
        if machine.isClosed { return }
        var want: UInt32 = 0
        // A TLS read that must write first would only spin on readability.
        if !readWaitsForWritable && machine.wantsToRead { want |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
        if machine.hasUnsent || readWaitsForWritable { want |= EPOLLOUT.rawValue }
        if want != interest {
            interest = want
            loop.modify(fd, events: want)
        }
    }

    private func release() {
        transport.close()
        loop.removed(self, fd: fd)
        if let state = stream {
            stream = nil
            state.close()
        }
    }

    private func log(_ slot: HTTPConnectionStateMachine.Slot, status: Int, bytes: Int) {
        let logger = loop.server.configuration.logger
        guard logger.logLevel <= .info else { return }
        let micros = (MonotonicClock.now() &- slot.started) / 1000
        // Written straight into one string's storage: interpolation grew it piece by piece.
        let method = slot.method.rawValue, target = LogRedaction.target(slot.target)
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
}
