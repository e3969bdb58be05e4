import Dispatch
import Glibc
import Synchronization
import Testing
import TandemHTTP

@Suite("HTTPServer over real sockets", .serialized)
struct ServerIntegrationTests {
    @Test func pipelinedRequestsAnsweredInOrderEvenWhenTheFirstIsDeferred() throws {
        let handler: HTTPHandler = { request, responder in
            if request.target == "/slow" {
                later(100) { responder.send(.text("slow")) }
            } else {
                responder.send(.text(String(request.target.dropFirst())))
            }
        }
        try withServer(handler: handler) { server in
            let c = try TestClient(port: server.boundPort)
            try c.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\nGET /a HTTP/1.1\r\nHost: t\r\n\r\nGET /b HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try c.readResponse().text == "slow")
            #expect(try c.readResponse().text == "a")
            #expect(try c.readResponse().text == "b")
        }
    }

    @Test func requestsPipelinedAfterAnUnsafeOneWaitForItsAnswer() throws {
        let value = Mutex(0)
        let handler: HTTPHandler = { request, responder in
            switch request.method {
            case .post:
                // Answered later, from another thread, as a group commit would.
                later(100) {
                    let now = value.withLock { v -> Int in v += 1; return v }
                    responder.send(.text("set \(now)"))
                }
            default:
                responder.send(.text("value \(value.withLock { $0 })"))
            }
        }
        try withServer(handler: handler) { server in
            let c = try TestClient(port: server.boundPort)
            try c.send("GET /v HTTP/1.1\r\nHost: t\r\n\r\nPOST /inc HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n"
                       + "GET /v HTTP/1.1\r\nHost: t\r\n\r\nPOST /inc HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\nHEAD /v HTTP/1.1\r\nHost: t\r\n\r\nGET /v HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try c.readResponse().text == "value 0")
            #expect(try c.readResponse().text == "set 1")
            #expect(try c.readResponse().text == "value 1")
            #expect(try c.readResponse().text == "set 2")
            #expect(try c.readResponse(head: true).headers["Content-Length"] == "7")
            #expect(try c.readResponse().text == "value 2")
        }
    }

    /// Pipelined unsafe requests reach the handler together (in order), so a client's
    /// pipelined edits can share one commit; only a safe request waits for them.
    @Test func pipelinedUnsafeRequestsAreHandledWithoutWaitingForEachOther() throws {
        let dispatched = Mutex(0)
        let handler: HTTPHandler = { request, responder in
            switch request.method {
            case .post:
                let n = dispatched.withLock { v -> Int in v += 1; return v }
                // The first answer waits until the third POST has arrived: were they handled
                // one at a time, it would never come.
                @Sendable func answer(_ tries: Int) {
                    later(20) {
                        if dispatched.withLock({ $0 }) >= 3 || tries == 0 {
                            responder.send(.text("post \(n) of \(dispatched.withLock { $0 })"))
                        } else {
                            answer(tries - 1)
                        }
                    }
                }
                answer(100)
            default:
                responder.send(.text("seen \(dispatched.withLock { $0 })"))
            }
        }
        try withServer(handler: handler) { server in
            let c = try TestClient(port: server.boundPort)
            let post = "POST /e HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n"
            try c.send(post + post + post + "GET /v HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try c.readResponse().text == "post 1 of 3")
            #expect(try c.readResponse().text == "post 2 of 3")
            #expect(try c.readResponse().text == "post 3 of 3")
            #expect(try c.readResponse().text == "seen 3")
        }
    }

    @Test func chunkedUploadWithTrailers() throws {
        try withServer(handler: echoHandler) { server in
            let c = try TestClient(port: server.boundPort)
            try c.send("POST /up HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n4;x=y\r\nWiki\r\n5\r\npedia\r\n0\r\nX-Sum: 9\r\n\r\n")
            let r = try c.readResponse()
            #expect(r.status == 200)
            #expect(r.text == "POST /up Wikipedia sum=9")
        }
    }

    @Test func expectContinueSendsInterimThenReadsBody() throws {
        try withServer(handler: echoHandler) { server in
            let c = try TestClient(port: server.boundPort)
            try c.send("PUT /x HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
            let interim = try c.readResponse()
            #expect(interim.status == 100)
            try c.send("hello")
            let r = try c.readResponse()
            #expect(r.status == 200)
            #expect(r.text == "PUT /x hello")
        }
    }

    @Test func expectContinueBehindAPendingResponseIsSentInOrder() throws {
        let handler: HTTPHandler = { request, responder in
            if request.target == "/slow" {
                later(200) { responder.send(.text("slow")) }
            } else {
                echoHandler(request, responder)
            }
        }
        try withServer(handler: handler) { server in
            let c = try TestClient(port: server.boundPort, receiveTimeoutSeconds: 3)
            try c.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\nPUT /x HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
            #expect(try c.readResponse().text == "slow")
            #expect(try c.readResponse().status == 100)
            try c.send("hello")
            let r = try c.readResponse()
            #expect(r.status == 200)
            #expect(r.text == "PUT /x hello")
        }
    }

    @Test func expectContinueWithTooLargeBodyGets413WithoutInterim() throws {
        try withServer(handler: echoHandler) { server in
            let c = try TestClient(port: server.boundPort)
            try c.send("PUT /x HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 999999\r\n\r\n")
            let r = try c.readResponse()
            #expect(r.status == 413)
            #expect(r.headers["Connection"] == "close")
            #expect(c.isClosedByPeer())
        }
    }

    @Test func keepAliveReusesTheConnection() throws {
        try withServer(handler: echoHandler) { server in
            let c = try TestClient(port: server.boundPort)
            for i in 0..<5 {
                try c.send("GET /\(i) HTTP/1.1\r\nHost: t\r\n\r\n")
                let r = try c.readResponse()
                #expect(r.text == "GET /\(i) ")
                #expect(r.headers["Connection"] == nil)
                #expect(r.headers["Date"]?.hasSuffix("GMT") == true)
                #expect(r.headers["Server"] == "Tandem")
            }
            #expect(server.connectionCount == 1)
        }
    }

    @Test func http10ClosesUnlessKeepAliveIsAsked() throws {
        try withServer(handler: echoHandler) { server in
            let a = try TestClient(port: server.boundPort)
            try a.send("GET /a HTTP/1.0\r\n\r\n")
            #expect(try a.readResponse().headers["Connection"] == "close")
            #expect(a.isClosedByPeer())

            let b = try TestClient(port: server.boundPort)
            try b.send("GET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try b.readResponse().headers["Connection"] == "keep-alive")
            try b.send("GET /c HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try b.readResponse().text == "GET /c ")
        }
    }

    @Test func connectionCloseIsHonouredAndLaterPipelinedRequestsDropped() throws {
        try withServer(handler: echoHandler) { server in
            let c = try TestClient(port: server.boundPort)
            try c.send("GET /1 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\nGET /2 HTTP/1.1\r\nHost: t\r\n\r\n")
            let r = try c.readResponse()
            #expect(r.text == "GET /1 ")
            #expect(r.headers["Connection"] == "close")
            #expect(c.isClosedByPeer())
        }
    }

    static let rejections: [(String, Int)] = [
        ("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\n", 400),
        ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400),
        ("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost : t\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: t\r\nX: a\r\n b\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: t\rX: y\r\n\r\n", 400),
        ("GET / HTTP/1.1\nHost: t\n\n", 400),
        ("G@T / HTTP/1.1\r\nHost: t\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: t\r\nX: \u{1}\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcXY", 400),
        ("GET / HTTP/1.1\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        ("GET / HTTP/2.0\r\nHost: t\r\n\r\n", 505),
        ("GET /\(String(repeating: "a", count: 300)) HTTP/1.1\r\nHost: t\r\n\r\n", 414),
        ("GET / HTTP/1.1\r\nHost: t\r\nX: \(String(repeating: "a", count: 2000))\r\n\r\n", 431),
        ("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\n\r\n", 413),
        ("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nFFFF\r\n", 413),
    ]

    @Test(arguments: rejections.indices)
    func rejectionAnswersAndCloses(_ index: Int) throws {
        let (raw, status) = Self.rejections[index]
        try withServer(handler: echoHandler) { server in
            let c = try TestClient(port: server.boundPort)
            try c.send(raw)
            let r = try c.readResponse()
            #expect(r.status == status, "\(raw.debugDescription)")
            #expect(r.headers["Connection"] == "close")
            #expect(r.text.hasPrefix(#"{"error":{"code":""#))
            #expect(c.isClosedByPeer())
        }
    }

    @Test func slowlorisIsCutOffWhileOthersAreServed() throws {
        try withServer({ $0.timeouts.headerRead = .milliseconds(300) }, handler: echoHandler) { server in
            let slow = try TestClient(port: server.boundPort)
            let partial = Array("GET / HTTP/1.1\r\nHost: t\r\nX-Slow: ".utf8)
            let bytes = partial + Array(repeating: UInt8(ascii: "a"), count: 200)
            let cutOff = try trickle(slow, bytes.map { [$0] }, port: server.boundPort) { other in
                try other.send("GET /fast HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(try other.readResponse().text == "GET /fast ")
            }
            #expect(cutOff)
            let r = try slow.readResponse()
            #expect(r.status == 408)
            #expect(slow.isClosedByPeer())
        }
    }

    @Test func idleKeepAliveConnectionIsClosed() throws {
        try withServer({ $0.timeouts.idle = .milliseconds(200) }, handler: echoHandler) { server in
            let c = try TestClient(port: server.boundPort)
            try c.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try c.readResponse().status == 200)
            #expect(c.isClosedByPeer())
        }
    }

    @Test func deferredResponseFromAnotherThread() throws {
        let handler: HTTPHandler = { request, responder in
            Background.run { responder.send(.json(Array(#"{"late":true}"#.utf8), status: .created)) }
        }
        try withServer(handler: handler) { server in
            let c = try TestClient(port: server.boundPort)
            try c.send("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
            let r = try c.readResponse()
            #expect(r.status == 201)
            #expect(r.text == #"{"late":true}"#)
            #expect(r.headers["Content-Length"] == "13")
        }
    }

    @Test func routerHeadOptions405And404() throws {
        var router = Router()
        router.get("/doc/:id") { request in .text("doc \(request.parameters["id"] ?? "")") }
        router.put("/doc/:id") { _ in .text("put") }
        try withServer(handler: router.handler) { server in
            let c = try TestClient(port: server.boundPort)
            try c.send("HEAD /doc/7 HTTP/1.1\r\nHost: t\r\n\r\n")
            let head = try c.readResponse(head: true)
            #expect(head.status == 200)
            #expect(head.headers["Content-Length"] == "5")
            try c.send("GET /doc/7 HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try c.readResponse().text == "doc 7")
            try c.send("OPTIONS /doc/7 HTTP/1.1\r\nHost: t\r\n\r\n")
            let options = try c.readResponse()
            #expect(options.status == 204)
            #expect(options.headers["Allow"] == "GET, PUT, HEAD, OPTIONS")
            try c.send("DELETE /doc/7 HTTP/1.1\r\nHost: t\r\n\r\n")
            let denied = try c.readResponse()
            #expect(denied.status == 405)
            #expect(denied.headers["Allow"] == "GET, PUT, HEAD, OPTIONS")
            #expect(denied.text.contains("method_not_allowed"))
            try c.send("GET /nothing HTTP/1.1\r\nHost: t\r\n\r\n")
            let missing = try c.readResponse()
            #expect(missing.status == 404)
            #expect(missing.text.contains("not_found"))
        }
    }

    @Test func streamedChunkedResponse() throws {
        let closed = Mutex(false)
        let handler: HTTPHandler = { _, responder in
            responder.send(HTTPResponse(headers: ["Content-Type": "text/event-stream"], body: .stream { writer in
                writer.onClose { closed.withLock { $0 = true } }
                Background.run {
                    for i in 0..<3 { writer.write(Array("data: \(i)\n\n".utf8)) }
                    writer.finish()
                }
            }))
        }
        try withServer(handler: handler) { server in
            let c = try TestClient(port: server.boundPort)
            try c.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
            let r = try c.readResponse()
            #expect(r.status == 200)
            #expect(r.headers["Transfer-Encoding"] == "chunked")
            #expect(r.headers["Content-Length"] == nil)
            #expect(r.text == "data: 0\n\ndata: 1\n\ndata: 2\n\n")
            // The connection carries on after the stream.
            try c.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try c.readResponse().text.hasPrefix("data: 0"))
        }
        #expect(closed.withLock { $0 })
    }

    /// One chunk queued on two streams is one array written by both connections, from where
    /// it is. Each stream comes after a large answer still stuck in its socket and is taken in
    /// parts: on each connection every byte must still arrive once and in order, the pipelined
    /// answer after the stream included.
    @Test func sharedChunkArrivesWholeOnEveryStream() throws {
        let big = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        // With `big`, under the connection's 1 MB output limit and the stream's 1 MB buffer,
        // so the requests behind it are taken at once and no write is refused.
        let before = String(repeating: "b", count: 600_000)
        let shared = HTTPStreamChunk(big)
        let handler: HTTPHandler = { request, responder in
            switch request.path {
            case "/before": responder.send(.text(before))
            case "/events":
                responder.send(HTTPResponse(body: .stream { writer in
                    Background.run {
                        writer.write(Array("first".utf8))
                        #expect(writer.write(shared))
                        #expect(writer.write(Array("last".utf8)))
                        writer.finish()
                    }
                }))
            default: responder.send(.text("after"))
            }
        }
        // A small send buffer keeps most of `/before` in the connection's own output.
        let smallSendBuffer: (inout HTTPServer.Configuration) -> Void = { config in
            config.transportFactory = { fd in
                var size: Int32 = 4096
                setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
                return PlainTransport(fileDescriptor: fd)
            }
        }
        try withServer(smallSendBuffer, handler: handler) { server in
            let clients = try (0..<2).map { _ in try TestClient(port: server.boundPort) }
            for c in clients {
                try c.send("GET /before HTTP/1.1\r\nHost: t\r\n\r\nGET /events HTTP/1.1\r\nHost: t\r\n\r\nGET /next HTTP/1.1\r\nHost: t\r\n\r\n")
            }
            // Neither reads for a moment: both sockets fill, the stream's head waits behind.
            usleep(200_000)
            for c in clients {
                #expect(try c.readResponse().text == before)
                let r = try c.readResponse()
                #expect(r.status == 200)
                let expected = Array("first".utf8) + big + Array("last".utf8)
                // Compared by count and first difference: a dump of 600 kB helps no one.
                #expect(r.body.count == expected.count)
                #expect(r.body.indices.first { r.body[$0] != expected[$0] } == nil)
                #expect(try c.readResponse().text == "after")
            }
        }
    }

    @Test func streamOnCloseRunsWhenThePeerGoesAway() throws {
        let writerBox = Mutex<HTTPStreamWriter?>(nil)
        let closedSignal = DispatchSemaphore(value: 0)
        let handler: HTTPHandler = { _, responder in
            responder.send(HTTPResponse(body: .stream { writer in
                writer.onClose { closedSignal.signal() }
                writerBox.withLock { $0 = writer }
                writer.write(Array("hello".utf8))
            }))
        }
        try withServer(handler: handler) { server in
            do {
                let c = try TestClient(port: server.boundPort)
                try c.send("GET /s HTTP/1.1\r\nHost: t\r\n\r\n")
                _ = try c.readHeadOnly()
                #expect(try c.readChunk() == Array("hello".utf8))
            }
            // The client is gone: writing eventually fails and onClose fires.
            var fired = false
            for _ in 0..<200 {
                writerBox.withLock { _ = $0?.write(Array("tick".utf8)) }
                if closedSignal.wait(timeout: .now() + .milliseconds(20)) == .success { fired = true; break }
            }
            #expect(fired)
            #expect(writerBox.withLock { $0?.isClosed } == true)
        }
    }

    @Test func gracefulShutdownFinishesInFlightRequest() throws {
        var logger = HTTPServer.Configuration().logger
        logger.logLevel = .critical
        let started = DispatchSemaphore(value: 0)
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, eventLoopCount: 1, logger: logger)) { _, responder in
            started.signal()
            later(300) { responder.send(.text("finished")) }
        }
        try server.start()
        let port = server.boundPort
        let c = try TestClient(port: port)
        try c.send("GET /work HTTP/1.1\r\nHost: t\r\n\r\n")
        started.wait()
        let done = DispatchSemaphore(value: 0)
        Background.run { server.shutdown(gracePeriod: .seconds(5)); done.signal() }
        let r = try c.readResponse()
        #expect(r.text == "finished")
        #expect(r.headers["Connection"] == "close")
        #expect(c.isClosedByPeer())
        done.wait()
        server.waitUntilStopped()
        #expect(throws: TestClient.Failure.self) { _ = try TestClient(port: port) }
    }

    @Test func connectionLimitAnswers503() throws {
        try withServer({ $0.maxConnections = 1; $0.eventLoopCount = 1 }, handler: echoHandler) { server in
            let first = try TestClient(port: server.boundPort)
            try first.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try first.readResponse().status == 200)
            let second = try TestClient(port: server.boundPort)
            let r = try second.readResponse()
            #expect(r.status == 503)
            #expect(r.headers["Date"]?.hasSuffix(" GMT") == true)
            #expect(r.headers["Connection"] == "close")
            #expect(r.text == #"{"error":{"code":"too_many_connections","message":"the server is at capacity"}}"#)
            #expect(second.isClosedByPeer())
        }
    }

    @Test func dualStackListensOnIPv4AndIPv6() throws {
        try withServer({ $0.host = "::" }, handler: echoHandler) { server in
            for host in ["127.0.0.1", "::1"] {
                let c = try TestClient(port: server.boundPort, host: host)
                try c.send("GET /\(host) HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(try c.readResponse().text == "GET /\(host) ")
            }
        }
    }
}

enum Background {
    /// Runs `body` on another thread.
    static func run(_ body: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async(execute: body)
    }
}
