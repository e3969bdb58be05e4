import CLinux
import Glibc
import Logging
import Synchronization

/// One thread running epoll over its own listeners and connections.
///
/// Everything not marked otherwise is touched only on the loop's thread; other threads
/// reach it through `execute`, which queues a task and wakes the loop with an eventfd.
final class EventLoop: @unchecked Sendable {
    let epollFD: Int32
    let wakeFD: Int32
    let server: ServerCore
    private let tasks = Mutex<[@Sendable () -> Void]>([])
    private let wakeArmed = Atomic<Bool>(false)
    private let hasTasks = Atomic<Bool>(false)
    private let threadID = Atomic<UInt>(0)

    // Loop-confined state; what every request touches skips the dynamic exclusivity checks,
    // as in HTTPConnection.
    var listeners: [Int32] = []
    @exclusivity(unchecked) private var connections: [HTTPConnection?] = []
    private(set) var connectionCount = 0
    /// Upstream connections of `clientPool`, by descriptor: a table of their own, so epoll's
    /// events reach them and the server's connection count and limits never see them.
    @exclusivity(unchecked) private var clients: [HTTPClientConnection?] = []
    private var pool: HTTPClientPool?
    let readBuffer: UnsafeMutableRawBufferPointer
    @exclusivity(unchecked) var date = HTTPDateCache()
    @exclusivity(unchecked) var now: UInt64 = MonotonicClock.now()
    private var lastSweep: UInt64 = 0
    private var stopping = false
    private var graceDeadline: UInt64 = .max
    private let tickNanos: UInt64
    /// Held open so that, out of descriptors, one can be freed to accept and turn away a client.
    private var spareFD: Int32 = -1
    /// Listeners are out of epoll until then (0: watched), after accept ran out of descriptors:
    /// a readable listener that cannot be accepted from would wake the loop without end.
    private var listenersPausedUntil: UInt64 = 0
    private var descriptorShortage = false
    private static let acceptBackoff: UInt64 = 100_000_000
    /// The sweep's period during shutdown: idle connections close soon after they fall quiet.
    private static let shutdownTick: UInt64 = 20_000_000

    init(server: ServerCore) throws {
        self.server = server
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard epollFD >= 0, wakeFD >= 0 else { throw HTTPServerError.system("epoll/eventfd", errno) }
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        let t = server.configuration.timeouts
        let shortest = min(t.headerRead, t.bodyRead, t.idle, t.write).nanoseconds
        tickNanos = min(max(shortest / 4, 5_000_000), 250_000_000)
        register(wakeFD, events: EPOLLIN.rawValue)
        spareFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    deinit {
        if spareFD >= 0 { close(spareFD) }
        readBuffer.deallocate()
        close(epollFD)
        close(wakeFD)
    }

    var inLoop: Bool { pthread_self() == threadID.load(ordering: .relaxed) }

    /// The loop whose thread calls this, if any (set for the life of `run`).
    static var current: EventLoop? {
        guard let pointer = pthread_getspecific(currentKey) else { return nil }
        return Unmanaged<EventLoop>.fromOpaque(pointer).takeUnretainedValue()
    }

    private static let currentKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// `execute` for requests read on this loop (`HTTPRequest.executor`); made once, on the loop.
    private(set) lazy var executor = RequestExecutor { [unowned self] work in execute(work) }

    /// Runs `task` on the loop thread soon; callable from any thread.
    func execute(_ task: @escaping @Sendable () -> Void) {
        tasks.withLock { $0.append(task) }
        hasTasks.store(true, ordering: .releasing)
        if inLoop { return }
        if !wakeArmed.exchange(true, ordering: .acquiringAndReleasing) {
            var one: UInt64 = 1
            _ = Glibc.write(wakeFD, &one, 8)
        }
    }

    func register(_ fd: Int32, events: UInt32) {
        var ev = epoll_event()
        ev.events = events
        ev.data.fd = fd
        epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &ev)
    }

    func modify(_ fd: Int32, events: UInt32) {
        var ev = epoll_event()
        ev.events = events
        ev.data.fd = fd
        epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &ev)
    }

    // MARK: the loop

    func run() {
        threadID.store(pthread_self(), ordering: .relaxed)
        pthread_setspecific(Self.currentKey, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.currentKey, nil) }
        for l in listeners { register(l, events: EPOLLIN.rawValue) }
        let maxEvents = 256
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: maxEvents)
        defer { events.deallocate() }
        date.refresh()
        while true {
            let wait = stopping ? min(tickNanos, Self.shutdownTick)
                : listenersPausedUntil == 0 ? tickNanos : min(tickNanos, Self.acceptBackoff)
            let n = epoll_wait(epollFD, events, Int32(maxEvents), Int32(wait / 1_000_000))
            now = MonotonicClock.now()
            date.refresh()
            if listenersPausedUntil != 0 && now >= listenersPausedUntil {
                listenersPausedUntil = 0
                for l in listeners { register(l, events: EPOLLIN.rawValue) }
            }
            // Work other threads handed this loop first (outcomes to publish, answers and
            // stream chunks to write): it is already late, and the new input can wait for it.
            runTasks()
            if n > 0 {
                for i in 0..<Int(n) {
                    let ev = events[i]
                    let fd = ev.data.fd
                    if fd == wakeFD {
                        var value: UInt64 = 0
                        _ = Glibc.read(wakeFD, &value, 8)
                        wakeArmed.store(false, ordering: .releasing)
                    } else if let conn = fd < connections.count ? connections[Int(fd)] : nil {
                        conn.handle(events: ev.events)
                    } else if let client = fd < clients.count ? clients[Int(fd)] : nil {
                        client.handle(events: ev.events)
                    } else if listeners.contains(fd) {
                        acceptAll(fd)
                    }
                }
            }
            runTasks()
            if now &- lastSweep >= (stopping ? min(tickNanos, Self.shutdownTick) : tickNanos) {
                lastSweep = now
                sweep()
            }
            if stopping && (connectionCount == 0 || now >= graceDeadline) {
                for case let conn? in connections { conn.close() }
                closeClients()
                runTasks()
                return
            }
        }
    }

    private func runTasks() {
        while hasTasks.load(ordering: .acquiring) {
            hasTasks.store(false, ordering: .releasing)
            let pending = tasks.withLock { t -> [@Sendable () -> Void] in
                let p = t
                t.removeAll(keepingCapacity: true)
                return p
            }
            for task in pending { task() }
        }
    }

    private func sweep() {
        for case let conn? in connections { conn.checkTimeouts(now: now) }
        for case let client? in clients { client.checkTimeouts(now: now) }
        pool?.sweep(now: now)
    }

    // MARK: upstream connections

    /// This loop's pool of upstream connections, made on first use (on the loop).
    var clientPool: HTTPClientPool {
        if let pool { return pool }
        let made = HTTPClientPool(loop: self, configuration: server.configuration.client)
        pool = made
        return made
    }

    func addClient(_ client: HTTPClientConnection) {
        let fd = Int(client.fd)
        if fd >= clients.count { clients.append(contentsOf: repeatElement(nil, count: fd + 64 - clients.count)) }
        clients[fd] = client
        register(client.fd, events: EPOLLOUT.rawValue)
    }

    func removeClient(_ client: HTTPClientConnection) {
        let fd = Int(client.fd)
        if fd < clients.count, clients[fd] === client { clients[fd] = nil }
    }

    /// The loop ends: queued requests and those in flight fail with `shutdown`.
    private func closeClients() {
        pool?.shutdown()
        for case let client? in clients { client.close() }
    }

    // MARK: connections

    private func acceptAll(_ listener: Int32) {
        var accepted = 0
        while accepted < 128 {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    server.configuration.accept(listener, $0, &length, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue))
                }
            }
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno == EMFILE || errno == ENFILE { outOfDescriptors(listener) }
                return
            }
            accepted += 1
            if descriptorShortage {
                descriptorShortage = false
                server.configuration.logger.notice("accept: descriptors available again")
            }
            guard server.admitConnection() else {
                turnAway(fd, ServerCore.overloadedResponse(date: date.bytes))
                continue
            }
            var counted: IPAddress?
            if server.configuration.maxConnectionsPerAddress > 0, let peer = IPAddress(storage) {
                switch server.admitConnection(from: peer) {
                case .uncounted: break
                case .counted(let key): counted = key
                case .refused:
                    server.releaseConnection()
                    turnAway(fd, ServerCore.perAddressResponse(date: date.bytes, cap: server.configuration.maxConnectionsPerAddress))
                    continue
                }
            }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let transport = server.configuration.transportFactory(fd)
            let conn = HTTPConnection(loop: self, transport: transport, remoteAddress: SocketAddress.describe(storage))
            conn.countedPeer = counted
            if Int(fd) >= connections.count {
                connections.append(contentsOf: repeatElement(nil, count: Int(fd) + 64 - connections.count))
            }
            connections[Int(fd)] = conn
            connectionCount += 1
            register(fd, events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue)
            if stopping { conn.beginShutdown() }
        }
    }

    /// Over a limit: its answer, best effort, and close (no state is kept).
    private func turnAway(_ fd: Int32, _ response: [UInt8]) {
        _ = response.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, PlainTransport.noSignal | PlainTransport.dontWait) }
        Glibc.close(fd)
    }

    /// Frees the spare descriptor to answer one waiting client with 503, then stops watching
    /// the listeners for a moment; logs once per shortage, not once per wake-up.
    private func outOfDescriptors(_ listener: Int32) {
        if !descriptorShortage {
            descriptorShortage = true
            server.configuration.logger.error("accept: out of file descriptors (\(connectionCount) connections on this loop); turning clients away")
        }
        if spareFD >= 0 {
            Glibc.close(spareFD)
            spareFD = -1
            let fd = server.configuration.accept(listener, nil, nil, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue))
            if fd >= 0 { turnAway(fd, ServerCore.overloadedResponse(date: date.bytes)) }
            spareFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        }
        if listenersPausedUntil == 0 {
            for l in listeners { epoll_ctl(epollFD, EPOLL_CTL_DEL, l, nil) }
        }
        listenersPausedUntil = now &+ Self.acceptBackoff
    }

    func removed(_ conn: HTTPConnection, fd: Int32) {
        if Int(fd) < connections.count, connections[Int(fd)] === conn {
            connections[Int(fd)] = nil
            connectionCount -= 1
            server.releaseConnection()
            if let peer = conn.countedPeer { server.releaseConnection(from: peer) }
        }
    }

    /// Stops accepting, closes idle connections and lets busy ones finish until `deadline`.
    func beginShutdown(deadline: UInt64) {
        stopping = true
        graceDeadline = deadline
        for l in listeners {
            // Connections the kernel completed but nobody accepted yet would be reset by the
            // close, a request perhaps already written on them: taken in, and answered with
            // `Connection: close` like the rest.
            if listenersPausedUntil == 0 { acceptAll(l) }
            epoll_ctl(epollFD, EPOLL_CTL_DEL, l, nil)
            Glibc.close(l)
        }
        listeners = []
        for case let conn? in connections { conn.beginShutdown() }
    }
}
