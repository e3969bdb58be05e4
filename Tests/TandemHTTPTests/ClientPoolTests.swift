import Glibc
import Synchronization
import Testing
@testable import TandemHTTP

/// The pool against real upstreams (a Tandem server in-process, or `FakeUpstream`), on an
/// event loop of its own: reuse, the per-upstream limit and its queue, the retry of a
/// request a stale connection lost, errors.
struct ClientPoolTests {
    static func get(_ target: String) -> HTTPClientRequest { HTTPClientRequest(method: .get, target: target) }

    @Test func threeSequentialRequestsShareOneConnection() throws {
        let peers = PeerLog()
        try withUpstream(handler: peers.echo) { upstream, client in
            let recorder = Recorder()
            for i in 1...3 {
                client.run { pool in pool.send(Self.get("/r\(i)"), to: upstream, handler: recorder.handler("r\(i)")) }
                #expect(recorder.waitForEnd("r\(i)"))
                #expect(recorder.lines("r\(i)") == ["head 200", "body GET /r\(i) ", "end ok"])
            }
            #expect(peers.requests == 3)
            #expect(peers.distinct == 1)
            #expect(client.connectionCount(to: upstream) == (1, 1))
        }
    }

    /// Each next request sent from the previous one's `end`, on the loop, while the
    /// connection is still performing its actions: it takes the connection just freed.
    @Test func aRequestSentFromTheEndOfTheLastOneReusesItsConnection() throws {
        let peers = PeerLog()
        try withUpstream(handler: peers.echo) { upstream, client in
            let recorder = Recorder()
            client.run { pool in Self.chain(1, of: 4, pool, upstream, recorder) }
            #expect(recorder.waitForEnd("r4"))
            for i in 1...4 { #expect(recorder.lines("r\(i)") == ["head 200", "body GET /r\(i) ", "end ok"]) }
            #expect(peers.distinct == 1)
        }
    }

    static func chain(_ i: Int, of n: Int, _ pool: HTTPClientPool, _ upstream: HTTPUpstream, _ recorder: Recorder) {
        pool.send(get("/r\(i)"), to: upstream, handler: recorder.handler("r\(i)", onEnd: {
            if i < n { chain(i + 1, of: n, pool, upstream, recorder) }
        }))
    }

    @Test func theHostAndLengthAreTheClientsAndHopByHopFieldsAreDropped() throws {
        let seen = Mutex<HTTPHeaders>([:])
        try withServer(handler: { request, responder in
            seen.withLock { $0 = request.headers }
            echoHandler(request, responder)
        }) { server in
            let upstream = HTTPUpstream(host: "127.0.0.1", port: server.boundPort)
            try withClientLoop { client in
                let recorder = Recorder()
                let request = HTTPClientRequest(method: .post, target: "/p", headers: [
                    "Host": "elsewhere", "Content-Length": "99", "Connection": "close, X-Hop", "X-Hop": "1",
                    "Keep-Alive": "timeout=5", "TE": "trailers", "Transfer-Encoding": "chunked", "X-Kept": "yes",
                ], body: Array("abc".utf8))
                client.run { pool in pool.send(request, to: upstream, handler: recorder.handler("p")) }
                #expect(recorder.waitForEnd("p"))
                #expect(recorder.lines("p") == ["head 200", "body POST /p abc", "end ok"])
                let headers = seen.withLock { $0 }
                #expect(headers["Host"] == upstream.authority)
                #expect(headers["Content-Length"] == "3")
                #expect(headers["X-Kept"] == "yes")
                for name in ["Connection", "X-Hop", "Keep-Alive", "TE", "Transfer-Encoding"] { #expect(headers[name] == nil, "\(name)") }
                // The handed `Connection: close` concerned the hop it came in on: this one is kept.
                #expect(client.connectionCount(to: upstream) == (1, 1))
            }
        }
    }

    @Test func requestsBeyondTheLimitWaitInTheQueueAndBeyondItAreRefused() throws {
        let peers = PeerLog()
        let inFlight = Mutex((now: 0, most: 0))
        try withServer(handler: { request, responder in
            peers.add(request.remoteAddress)
            inFlight.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
            later(100) {
                inFlight.withLock { $0.now -= 1 }
                responder.send(.text("done"))
            }
        }) { server in
            let upstream = HTTPUpstream(host: "127.0.0.1", port: server.boundPort)
            try withClientLoop({ $0.maxConnectionsPerUpstream = 2; $0.maxQueuedPerUpstream = 2 }) { client in
                let recorder = Recorder()
                client.run { pool in
                    for i in 0..<5 { pool.send(Self.get("/\(i)"), to: upstream, handler: recorder.handler("r\(i)")) }
                }
                #expect(recorder.waitForEnd("r4"))
                #expect(recorder.lines("r4") == ["end queueFull"])
                for i in 0..<4 {
                    #expect(recorder.waitForEnd("r\(i)"))
                    #expect(recorder.lines("r\(i)") == ["head 200", "body done", "end ok"], "r\(i)")
                }
                #expect(inFlight.withLock { $0.most } == 2)
                #expect(peers.distinct == 2)
                #expect(client.connectionCount(to: upstream) == (2, 2))
            }
        }
    }

    @Test func aRefusedConnectFailsTheRequest() throws {
        let upstream = HTTPUpstream(host: "127.0.0.1", port: unusedPort())
        try withClientLoop { client in
            let recorder = Recorder()
            client.run { pool in pool.send(Self.get("/"), to: upstream, handler: recorder.handler("r")) }
            #expect(recorder.waitForEnd("r"))
            #expect(recorder.lines("r") == ["end connectFailed(\(ECONNREFUSED))"])
            #expect(client.connectionCount(to: upstream) == (0, 0))
        }
    }

    @Test func anInvalidRequestFailsWithoutConnecting() throws {
        let upstream = HTTPUpstream(host: "127.0.0.1", port: unusedPort())
        try withClientLoop { client in
            let recorder = Recorder()
            client.run { pool in
                pool.send(HTTPClientRequest(method: .get, target: "/", headers: ["X-Bad": "a\r\nInjected: 1"]), to: upstream, handler: recorder.handler("h"))
                pool.send(HTTPClientRequest(method: .get, target: "http://n2/"), to: upstream, handler: recorder.handler("t"))
            }
            #expect(recorder.waitForEnd("h") && recorder.waitForEnd("t"))
            #expect(recorder.lines("h") == ["end invalidRequest(\"header \\\"X-Bad\\\"\")"])
            #expect(recorder.lines("t") == ["end invalidRequest(\"target must be origin-form\")"])
            #expect(client.connectionCount(to: upstream) == (0, 0))
        }
    }

    @Test func anIdleConnectionTheServerClosedIsReplacedByAFreshOne() throws {
        let peers = PeerLog()
        try withUpstream({ $0.timeouts.idle = .milliseconds(300) }, handler: peers.echo) { upstream, client in
            let recorder = Recorder()
            client.run { pool in pool.send(Self.get("/a"), to: upstream, handler: recorder.handler("a")) }
            #expect(recorder.waitForEnd("a"))
            // The server's idle timeout closes it; the pool sees the EOF and lets it go.
            var dropped = false
            for _ in 0..<300 where !dropped {
                usleep(10_000)
                dropped = client.connectionCount(to: upstream) == (0, 0)
            }
            #expect(dropped)
            client.run { pool in pool.send(Self.get("/b"), to: upstream, handler: recorder.handler("b")) }
            #expect(recorder.waitForEnd("b"))
            #expect(recorder.lines("b") == ["head 200", "body GET /b ", "end ok"])
            #expect(peers.distinct == 2)
        }
    }

    /// The upstream closes a kept-alive connection as the next request arrives (its idle
    /// timeout and the request crossing): an idempotent request goes again on a new
    /// connection; a POST does not, unless it carries an `Idempotency-Key`.
    @Test(arguments: [
        (HTTPMethod.get, HTTPHeaders(), true),
        (HTTPMethod.delete, HTTPHeaders(), true),
        (HTTPMethod.post, HTTPHeaders(), false),
        (HTTPMethod.post, HTTPHeaders([("Idempotency-Key", "k1")]), true),
    ])
    func aRequestLostOnAStaleConnectionIsRetriedOnlyWhenIdempotent(_ method: HTTPMethod, _ headers: HTTPHeaders, _ retried: Bool) throws {
        let fake = try FakeUpstream([[.answer("first"), .closeWithoutAnswer], [.answer("second")]])
        defer { fake.stop() }
        let upstream = HTTPUpstream(host: "127.0.0.1", port: fake.port)
        try withClientLoop { client in
            let recorder = Recorder()
            let request = HTTPClientRequest(method: method, target: "/x", headers: headers)
            client.run { pool in pool.send(request, to: upstream, handler: recorder.handler("1")) }
            #expect(recorder.waitForEnd("1"))
            #expect(recorder.lines("1") == ["head 200", "body first", "end ok"])
            client.run { pool in pool.send(request, to: upstream, handler: recorder.handler("2")) }
            #expect(recorder.waitForEnd("2"))
            if retried {
                #expect(recorder.lines("2") == ["head 200", "body second", "end ok"])
                #expect(fake.connections == 2)
            } else {
                #expect(recorder.lines("2") == ["end connectionClosed"])
                usleep(100_000)
                #expect(fake.connections == 1)
            }
        }
    }
}
