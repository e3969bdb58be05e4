import CLinux
import Glibc
import Logging

extension HTTPServer {
    public struct Timeouts: Sendable, Equatable {
        /// From the first byte of a request head to its end (slowloris defence); 408 then close.
        public var headerRead: Duration
        /// Longest silence while a body is arriving, and the grace before `minimumBodyRate`
        /// applies; 408 then close.
        public var bodyRead: Duration
        /// Longest silence of a keep-alive connection between requests; closed quietly.
        public var idle: Duration
        /// Longest time queued output may make no progress, and the grace before
        /// `minimumWriteRate` applies (also cuts stalled streams).
        public var write: Duration
        /// Bytes per second a body must average once `bodyRead` has passed: each byte buys
        /// `1/rate` s more (as Apache's mod_reqtimeout), so a trickle of one byte per
        /// silence period cannot hold a connection for the whole body. 0 turns it off.
        public var minimumBodyRate: Int
        /// Bytes per second a client must take while output waits for it, measured from the
        /// moment the socket first refused bytes until the queue is empty again; a stream
        /// whose reader keeps up is never cut, however long it lives. 0 turns it off.
        public var minimumWriteRate: Int

        public init(headerRead: Duration = .seconds(10), bodyRead: Duration = .seconds(30),
                    idle: Duration = .seconds(60), write: Duration = .seconds(30),
                    minimumBodyRate: Int = 1024, minimumWriteRate: Int = 1024) {
            self.headerRead = headerRead
            self.bodyRead = bodyRead
            self.idle = idle
            self.write = write
            self.minimumBodyRate = max(0, minimumBodyRate)
            self.minimumWriteRate = max(0, minimumWriteRate)
        }
    }

    public struct Configuration: Sendable {
        /// A name or address: "127.0.0.1", "0.0.0.0", "::" (dual-stack), "localhost".
        public var host: String
        /// 0 picks a free port; read it back from `boundPort`.
        public var port: Int
        public var eventLoopCount: Int
        /// Connections beyond this get `503` and are closed at once.
        public var maxConnections: Int
        public var limits: HTTPLimits
        public var timeouts: Timeouts
        /// A stream refuses writes while more than this many bytes wait for a slow peer.
        public var maxStreamBufferBytes: Int
        /// Connections one client address (an IPv6 /64) may hold; one more gets `429` and is
        /// closed at accept. 0: no such cap.
        public var maxConnectionsPerAddress = 0
        /// Peers the per-address cap does not count (trusted proxies carry many clients).
        public var uncappedPeer: @Sendable (IPAddress) -> Bool = { _ in false }
        /// Makes the byte stream of an accepted socket (TLS plugs in here).
        public var transportFactory: @Sendable (Int32) -> Transport
        /// The upstream connections each loop's `HTTPClientPool` keeps (forwarded requests).
        public var client = HTTPClientPool.Configuration()
        /// One `.info` line per request; errors of the server itself at `.error`.
        public var logger: Logger
        /// accept4(2); tests put a failing one here to see how the loop copes with EMFILE.
        var accept: @Sendable (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32 = {
            shim_accept4($0, $1, $2, $3)
        }

        public init(
            host: String = "127.0.0.1", port: Int = 8080,
            eventLoopCount: Int = Configuration.coreCount,
            maxConnections: Int = 10_000,
            limits: HTTPLimits = HTTPLimits(),
            timeouts: Timeouts = Timeouts(),
            maxStreamBufferBytes: Int = 1 << 20,
            transportFactory: @escaping @Sendable (Int32) -> Transport = { PlainTransport(fileDescriptor: $0) },
            logger: Logger = Logger(label: "tandem.http")
        ) {
            self.host = host
            self.port = port
            self.eventLoopCount = max(1, eventLoopCount)
            self.maxConnections = maxConnections
            self.limits = limits
            self.timeouts = timeouts
            self.maxStreamBufferBytes = maxStreamBufferBytes
            self.transportFactory = transportFactory
            self.logger = logger
        }

        public static var coreCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
    }
}

extension Duration {
    var nanoseconds: UInt64 {
        let (s, a) = components
        return UInt64(max(0, s)) &* 1_000_000_000 &+ UInt64(max(0, a / 1_000_000_000))
    }
}
