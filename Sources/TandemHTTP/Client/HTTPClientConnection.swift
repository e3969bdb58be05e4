import CLinux
import Glibc

/// One upstream connection's I/O: a non-blocking socket on an `EventLoop`, driving its
/// `HTTPClientStateMachine`. Every decision is the machine's; this connects, writes what it
/// is told (resuming partial writes on EPOLLOUT), reads into the loop's read buffer, keeps
/// epoll's interest in step and hands what the answer brings to its pool.
///
/// Loop-confined, like `HTTPConnection`: every method runs on `loop`'s thread. The loop
/// finds it by descriptor in its `clients` table, apart from the server's connections.
final class HTTPClientConnection: @unchecked Sendable {
    unowned let loop: EventLoop
    unowned let pool: HTTPClientPool
    let fd: Int32
    let upstream: HTTPUpstream
    /// The pool's request on this connection, while one is.
    var task: HTTPClientTask?
    /// Opened for a long-lived answer (`HTTPClientRequest.longLived`): counted apart, never reused.
    var longLived = false
    @exclusivity(unchecked) private var machine: HTTPClientStateMachine
    @exclusivity(unchecked) private var interest: UInt32
    /// Actions are being performed: an event reported by a callback only queues more.
    @exclusivity(unchecked) private var running = false

    private init(loop: EventLoop, pool: HTTPClientPool, fd: Int32, upstream: HTTPUpstream, machine: HTTPClientStateMachine) {
        self.loop = loop
        self.pool = pool
        self.fd = fd
        self.upstream = upstream
        self.machine = machine
        interest = EPOLLOUT.rawValue
    }

    /// Starts connecting to `address` and registers with the loop; the connect's outcome
    /// arrives through epoll (EPOLLOUT), even when the kernel completes it at once, so that
    /// no caller is answered from inside its own call. Fails (`connectFailed`) when no socket
    /// could be made or the connect was refused on the spot.
    static func connect(loop: EventLoop, pool: HTTPClientPool, to address: sockaddr_storage, upstream: HTTPUpstream,
                        timeouts: HTTPClientStateMachine.Timeouts, maxHeadBytes: Int) -> Result<HTTPClientConnection, HTTPClientError> {
        let family = Int32(address.ss_family)
        let fd = socket(family, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(HTTPClientError(.connectFailed(errno))) }
        // Requests are written whole and answers awaited: Nagle would only hold back their tails.
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var a = address
        let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
        var rc: Int32
        repeat {
            rc = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) } }
        } while rc < 0 && errno == EINTR
        if rc < 0 && errno != EINPROGRESS {
            let code = errno
            Glibc.close(fd)
            return .failure(HTTPClientError(.connectFailed(code)))
        }
        let machine = HTTPClientStateMachine(timeouts: timeouts, maxHeadBytes: maxHeadBytes, now: loop.now)
        let conn = HTTPClientConnection(loop: loop, pool: pool, fd: fd, upstream: upstream, machine: machine)
        loop.addClient(conn)
        return .success(conn)
    }

    var isIdle: Bool { machine.isIdle }
    var isClosed: Bool { machine.isClosed }

    // MARK: from the pool

    /// Sends `request` (now if idle, once connected if connecting). Its first write runs
    /// from the loop's task queue, not here: a write that fails must not answer the caller
    /// of `send` from inside its own call.
    func start(_ request: HTTPClientStateMachine.Request) {
        machine.start(request, now: loop.now)
        loop.execute { [self] in run() }
    }

    /// Closes at once, delivering nothing more of the answer.
    func cancel() {
        machine.cancel()
        run()
    }

    /// Closes at once (the loop is stopping): a request in flight fails with `shutdown`.
    func close() {
        machine.abort(.shutdown)
        run()
    }

    // MARK: from the loop

    func handle(events: UInt32) {
        if machine.state == .connecting {
            guard events & (EPOLLOUT.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 else { return }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if error != 0 {
                machine.connectFailed(error)
            } else if isConnected {
                machine.connected(now: loop.now)
            } else {
                return  // an event meant for this descriptor's previous owner, in the same epoll batch
            }
            run()
            return
        }
        if events & EPOLLOUT.rawValue != 0 {
            machine.writable()
            run()
            if machine.isClosed { return }
        }
        if events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLRDHUP.rawValue | EPOLLERR.rawValue) != 0 {
            readAvailable()
        }
    }

    private var isConnected: Bool {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) == 0 }
        }
    }

    func checkTimeouts(now: UInt64) {
        machine.tick(now: now)
        run()
    }

    // MARK: I/O

    private func readAvailable() {
        let buffer = loop.readBuffer
        let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
        if n > 0 {
            machine.received(Array(UnsafeRawBufferPointer(rebasing: buffer[..<n])), now: loop.now)
        } else if n == 0 {
            machine.peerClosed(now: loop.now)
        } else {
            let code = errno
            if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { return }
            // A reset is no clean end, even for a body delimited by the close.
            machine.ioFailed(code)
        }
        run()
    }

    /// Writes as much of `bytes` as the socket takes; the rest waits for EPOLLOUT.
    private func write(_ bytes: [UInt8]) {
        var total = 0
        var failure: Int32?
        bytes.withUnsafeBytes { raw in
            while total < raw.count {
                let n = send(fd, raw.baseAddress! + total, raw.count - total, PlainTransport.noSignal)
                if n > 0 {
                    total += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    if n < 0 && errno != EAGAIN && errno != EWOULDBLOCK { failure = errno }
                    return
                }
            }
        }
        machine.wrote(total, now: loop.now)
        if let failure { machine.ioFailed(failure) }
    }

    /// Performs the machine's actions until it waits.
    private func run() {
        if running { return }
        running = true
        while let action = machine.nextAction() {
            switch action {
            case .write(let bytes):
                write(bytes)
            case .head, .body, .finish(reusable: true):
                pool.deliver(action, from: self)
            case .finish(reusable: false), .fail, .close:
                release()
                pool.deliver(action, from: self)
            }
        }
        running = false
        updateInterest()
    }

    private func updateInterest() {
        if machine.isClosed { return }
        let want: UInt32 = machine.state == .connecting
            ? EPOLLOUT.rawValue
            : EPOLLIN.rawValue | EPOLLRDHUP.rawValue | (machine.wantsWritable ? EPOLLOUT.rawValue : 0)
        if want != interest {
            interest = want
            loop.modify(fd, events: want)
        }
    }

    private func release() {
        Glibc.close(fd)
        loop.removeClient(self)
    }
}
