import CLinux
import Dispatch
import Glibc
import Logging
import Synchronization

/// The HTTP/1.1 server: `eventLoopCount` epoll threads, each with its own SO_REUSEPORT
/// listeners, so the kernel spreads connections and no lock sits on the accept path. A port
/// another process holds is refused first: SO_REUSEPORT is shared within this process only.
public final class HTTPServer: Sendable {
    private struct State {
        var loops: [EventLoop] = []
        var threads: [pthread_t] = []
        var boundPort = 0
        var boundAddresses: [String] = []
        var started = false
        var stopped = false
    }

    public let configuration: Configuration
    private let core: ServerCore
    private let state = Mutex(State())
    private let stoppedGroup = DispatchGroup()

    public init(configuration: Configuration, handler: @escaping HTTPHandler) {
        self.configuration = configuration
        self.core = ServerCore(configuration: configuration, handler: handler)
    }

    /// Binds every address of `host` and starts the loop threads.
    public func start() throws {
        // Writes use MSG_NOSIGNAL, but a TLS transport may not: never die of SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        try state.withLock { s in
            if s.started { throw HTTPServerError.alreadyStarted }
            let descriptors = DescriptorLimit.raiseToHardLimit()
            core.maxConnections = DescriptorLimit.connectionCap(
                configured: configuration.maxConnections, descriptors: descriptors,
                eventLoops: configuration.eventLoopCount)
            if core.maxConnections < configuration.maxConnections {
                configuration.logger.warning("open-file limit \(descriptors) allows \(core.maxConnections) connections, not \(configuration.maxConnections)")
            }
            var addresses = try SocketAddress.resolve(host: configuration.host, port: configuration.port)
            var loops: [EventLoop] = []
            for _ in 0..<configuration.eventLoopCount { loops.append(try EventLoop(server: core)) }
            var port = configuration.port
            var names: [String] = []
            // Every address before binding any: ours may overlap (0.0.0.0 and dual-stack ::).
            if port != 0 { for address in addresses { try SocketAddress.requireUnused(address) } }
            do {
                for i in addresses.indices {
                    if port != 0 { SocketAddress.setPort(&addresses[i], port) }
                    for loop in loops {
                        let fd = try SocketAddress.listen(on: addresses[i], shared: loops.count > 1)
                        loop.listeners.append(fd)
                        if port == 0 {
                            port = SocketAddress.port(of: fd)
                            SocketAddress.setPort(&addresses[i], port)
                        }
                    }
                    names.append(SocketAddress.describe(addresses[i]))
                }
            } catch {
                for loop in loops { for fd in loop.listeners { Glibc.close(fd) } }
                throw error
            }
            s.boundPort = port
            s.boundAddresses = names
            s.loops = loops
            s.started = true
            for loop in loops {
                stoppedGroup.enter()
                let group = stoppedGroup
                s.threads.append(try Self.spawn { loop.run(); group.leave() })
            }
        }
        configuration.logger.info("listening on \(state.withLock { $0.boundAddresses }.joined(separator: ", "))")
    }

    public var boundPort: Int { state.withLock { $0.boundPort } }
    /// The bound socket addresses, e.g. `127.0.0.1:8080`, `[::]:8080`.
    public var boundAddresses: [String] { state.withLock { $0.boundAddresses } }
    /// The connection limit in force: `configuration.maxConnections`, or less once `start`
    /// has found the open-file limit lower.
    public var maxConnections: Int { core.maxConnections }
    /// Open connections across all loops.
    public var connectionCount: Int { core.connectionCount }

    /// Stops accepting, closes idle connections, lets in-flight requests finish for up to
    /// `gracePeriod`, then closes the rest. Returns when every loop thread has ended.
    public func shutdown(gracePeriod: Duration = .seconds(10)) {
        let (loops, threads) = state.withLock { s -> ([EventLoop], [pthread_t]) in
            if !s.started || s.stopped { return ([], []) }
            s.stopped = true
            let t = s.threads
            s.threads = []
            return (s.loops, t)
        }
        let deadline = MonotonicClock.now() &+ gracePeriod.nanoseconds
        for loop in loops { loop.execute { loop.beginShutdown(deadline: deadline) } }
        for t in threads { pthread_join(t, nil) }
        stoppedGroup.wait()
    }

    /// Blocks until `shutdown` has finished (returns at once if the server never started).
    public func waitUntilStopped() {
        stoppedGroup.wait()
    }

    private final class ThreadBody: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    static func spawn(_ body: @escaping @Sendable () -> Void) throws -> pthread_t {
        var tid = pthread_t()
        let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        let rc = pthread_create(&tid, nil, { raw in
            Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            throw HTTPServerError.system("pthread_create", rc)
        }
        return tid
    }
}
