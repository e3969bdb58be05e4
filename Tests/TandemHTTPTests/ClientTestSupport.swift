import Dispatch
import Glibc
import Logging
import Synchronization
@testable import TandemHTTP

/// An event loop of its own, with no listener, whose `clientPool` the socket tests drive;
/// the upstreams are real servers (`withServer`) or `FakeUpstream`.
final class ClientLoop: Sendable {
    let loop: EventLoop
    private let thread: pthread_t
    private let stopped = Mutex(false)

    /// `headerRead` sets the loop's tick (a quarter of its shortest timeout), how often
    /// client timeouts are checked.
    init(_ tune: (inout HTTPClientPool.Configuration) -> Void = { _ in }) throws {
        var logger = Logger(label: "client-test")
        logger.logLevel = .critical
        var config = HTTPServer.Configuration(
            host: "127.0.0.1", port: 0, eventLoopCount: 1,
            timeouts: .init(headerRead: .milliseconds(200), bodyRead: .seconds(2), idle: .seconds(5), write: .seconds(5)),
            logger: logger)
        tune(&config.client)
        let core = ServerCore(configuration: config) { _, responder in responder.send(.text("")) }
        let loop = try EventLoop(server: core)
        self.loop = loop
        thread = try HTTPServer.spawn { loop.run() }
    }

    /// Runs `work` with the pool, on its loop.
    func run(_ work: @escaping @Sendable (HTTPClientPool) -> Void) {
        let loop = self.loop
        loop.execute { work(loop.clientPool) }
    }

    /// The pool's count of connections to `upstream`, asked on the loop.
    func connectionCount(to upstream: HTTPUpstream) -> (open: Int, idle: Int) {
        let answer = Mutex<(Int, Int)?>(nil)
        run { pool in answer.withLock { $0 = pool.connectionCount(to: upstream) } }
        for _ in 0..<1000 {
            if let value = answer.withLock({ $0 }) { return value }
            usleep(1000)
        }
        return (-1, -1)
    }

    /// Stops the loop (closing its client connections) and waits for its thread.
    func stop() {
        if stopped.withLock({ s in defer { s = true }; return s }) { return }
        let loop = self.loop
        loop.execute { loop.beginShutdown(deadline: 0) }
        pthread_join(thread, nil)
    }
}

/// Runs `body` with a client loop, stopped afterwards.
func withClientLoop(_ tune: (inout HTTPClientPool.Configuration) -> Void = { _ in }, _ body: (ClientLoop) throws -> Void) throws {
    let client = try ClientLoop(tune)
    defer { client.stop() }
    try body(client)
}

/// What the handlers of the client's requests heard, as lines: `tag head 200`,
/// `tag body text`, `tag end ok` or `tag end <error>`.
final class Recorder: Sendable {
    private let state = Mutex<[String]>([])

    func add(_ line: String) { state.withLock { $0.append(line) } }
    var lines: [String] { state.withLock { $0 } }

    /// The lines of `tag`, without the tag.
    func lines(_ tag: String) -> [String] {
        lines.filter { $0.hasPrefix(tag + " ") }.map { String($0.dropFirst(tag.count + 1)) }
    }

    /// Waits (up to `seconds`) until `done` holds of the lines.
    @discardableResult
    func wait(seconds: Double = 5, until done: ([String]) -> Bool) -> Bool {
        let deadline = DispatchTime.now() + seconds
        while DispatchTime.now() < deadline {
            if done(lines) { return true }
            usleep(2000)
        }
        return done(lines)
    }

    /// Waits until `tag` has ended.
    @discardableResult
    func waitForEnd(_ tag: String, seconds: Double = 5) -> Bool {
        wait(seconds: seconds) { $0.contains { $0.hasPrefix(tag + " end ") } }
    }

    func handler(_ tag: String, onBody: @escaping @Sendable ([UInt8]) -> Void = { _ in },
                 onEnd: @escaping @Sendable () -> Void = {}) -> HTTPClientClosureHandler {
        HTTPClientClosureHandler(
            onHead: { [self] head in add("\(tag) head \(head.status)") },
            onBody: { [self] bytes in
                add("\(tag) body " + String(decoding: bytes, as: UTF8.self))
                onBody(bytes)
            },
            onEnd: { [self] result in
                switch result {
                case .success: add("\(tag) end ok")
                case .failure(let error): add("\(tag) end \(error.kind)" + (error.answerStarted ? " started" : ""))
                }
                onEnd()
            })
    }
}

/// The distinct client addresses (one per connection) a test server saw.
final class PeerLog: Sendable {
    private let peers = Mutex<[String]>([])
    func add(_ address: String) { peers.withLock { $0.append(address) } }
    var distinct: Int { peers.withLock { Set($0).count } }
    var requests: Int { peers.withLock { $0.count } }
    /// `echoHandler`, noting each request's peer.
    var echo: HTTPHandler { { [self] request, responder in add(request.remoteAddress); echoHandler(request, responder) } }
}

/// A port nothing listens on (bound a moment, then closed).
func unusedPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr)
    _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    return SocketAddress.port(of: fd)
}

/// An upstream that follows a script over raw sockets, to stage what a real server does only
/// by chance (closing a kept-alive connection just as a request arrives). One script per
/// connection accepted, in order; per request read (a head without body), the next step.
final class FakeUpstream: Sendable {
    enum Step: Sendable {
        /// Answers `200` with this body, keeping the connection.
        case answer(String)
        /// Reads the request and closes without a byte of answer.
        case closeWithoutAnswer
    }

    let port: Int
    private let listener: Int32
    private final class Counter: Sendable { let value = Atomic<Int>(0) }
    private let accepted = Counter()
    private let finished = DispatchSemaphore(value: 0)

    init(_ script: [[Step]]) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr)
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        listen(listener, 16)
        var tv = timeval(tv_sec: 3, tv_usec: 0)
        setsockopt(listener, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        port = SocketAddress.port(of: listener)
        let listening = listener, accepted = self.accepted, finished = self.finished
        DispatchQueue.global().async {
            var kept: [Int32] = []
            var tv = timeval(tv_sec: 3, tv_usec: 0)
            for steps in script {
                let fd = accept(listening, nil, nil)
                if fd < 0 { break }
                accepted.value.wrappingAdd(1, ordering: .relaxed)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                kept.append(fd)
                for step in steps {
                    guard Self.readHead(fd) else { break }
                    switch step {
                    case .answer(let body):
                        let answer = Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8)
                        _ = answer.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0x4000) }
                    case .closeWithoutAnswer:
                        close(fd)
                        kept.removeLast()
                    }
                }
            }
            finished.wait()
            for fd in kept { close(fd) }
        }
    }

    /// Connections accepted so far.
    var connections: Int { accepted.value.load(ordering: .relaxed) }

    /// Lets the script's thread close what it kept, and closes the listener.
    func stop() {
        finished.signal()
        shutdown(listener, Int32(SHUT_RDWR))  // wakes an accept still waiting
        close(listener)
    }

    /// Reads up to the end of a head (byte by byte: nothing past it is taken).
    private static func readHead(_ fd: Int32) -> Bool {
        var tail: [UInt8] = []
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1 {
            tail.append(byte)
            if tail.suffix(4) == [13, 10, 13, 10] { return true }
        }
        return false
    }
}

/// A real server answering with `handler` (`withServer`) and a client loop to send to it.
func withUpstream(
    _ tune: (inout HTTPServer.Configuration) -> Void = { _ in },
    handler: @escaping HTTPHandler,
    _ body: (HTTPUpstream, ClientLoop) throws -> Void
) throws {
    try withServer(tune, handler: handler) { server in
        try withClientLoop { client in try body(HTTPUpstream(host: "127.0.0.1", port: server.boundPort), client) }
    }
}
