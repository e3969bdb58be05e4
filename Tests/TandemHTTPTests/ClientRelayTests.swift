import Glibc
import Synchronization
import Testing
import TandemHTTP

/// `HTTPRelay` between two real servers: the relaying one's handler sends each request on to
/// the upstream, and a raw client reads what the relaying one answers.
struct ClientRelayTests {
    /// A server whose every request is relayed to `upstream`, with `relay`'s failure answer.
    func withRelay(to upstream: HTTPUpstream, _ relay: HTTPRelay = HTTPRelay(), _ body: (Int) throws -> Void) throws {
        try withServer(handler: { request, responder in
            let peer = IPAddress(peer: request.remoteAddress).map { "\($0)" } ?? "?"
            relay.relay(request, to: upstream, replacing: ["X-Forwarded-For": peer], responder: responder)
        }) { server in try body(server.boundPort) }
    }

    @Test func aWholeAnswerKeepsItsStatusAndFieldsButTheHopsOwn() throws {
        try withServer(handler: { _, responder in
            responder.send(HTTPResponse(status: .created, headers: [
                "Content-Type": "application/json", "Location": "/documents/a", "ETag": "\"7\"", "Keep-Alive": "timeout=5",
            ], body: .bytes(Array("{\"id\":\"a\"}".utf8))))
        }) { upstream in
            try withRelay(to: HTTPUpstream(host: "127.0.0.1", port: upstream.boundPort)) { port in
                let c = try TestClient(port: port)
                try c.send("POST /documents HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}")
                let r = try c.readResponse()
                #expect(r.status == 201)
                #expect(r.text == "{\"id\":\"a\"}")
                #expect(r.headers["Location"] == "/documents/a")
                #expect(r.headers["ETag"] == "\"7\"")
                #expect(r.headers["Content-Type"] == "application/json")
                #expect(r.headers.values("Date").count == 1)
                #expect(r.headers.values("Content-Length") == ["10"])
                #expect(r.headers["Keep-Alive"] == nil)
            }
        }
    }

    @Test func theRequestArrivesWithItsFieldsAndBodyAndWhoSentIt() throws {
        try withServer(handler: { request, responder in
            let seen = ["Authorization", "Idempotency-Key", "X-Forwarded-For", "Accept-Encoding", "Connection"]
                .map { "\($0)=\(request.headers[$0] ?? "-")" }.joined(separator: " ")
            responder.send(.text("\(request.method.rawValue) \(request.target) \(seen) \(String(decoding: request.body, as: UTF8.self))"))
        }) { upstream in
            try withRelay(to: HTTPUpstream(host: "127.0.0.1", port: upstream.boundPort)) { port in
                let c = try TestClient(port: port)
                try c.send("PATCH /documents/a/edits?since=3 HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer t\r\n"
                           + "Idempotency-Key: k1\r\nAccept-Encoding: gzip\r\nConnection: keep-alive\r\nContent-Length: 5\r\n\r\nhello")
                let r = try c.readResponse()
                #expect(r.status == 200)
                #expect(r.text == "PATCH /documents/a/edits?since=3 Authorization=Bearer t Idempotency-Key=k1 "
                                  + "X-Forwarded-For=127.0.0.1 Accept-Encoding=identity Connection=- hello")
            }
        }
    }

    @Test func anUpstreamThatIsDownGetsTheRelaysFailureAnswer() throws {
        let relay = HTTPRelay { why in .error(.serviceUnavailable, code: "owner_unreachable", message: why, headers: ["Retry-After": "1"]) }
        try withRelay(to: HTTPUpstream(host: "127.0.0.1", port: unusedPort()), relay) { port in
            let c = try TestClient(port: port)
            try c.send("GET /documents/a HTTP/1.1\r\nHost: a\r\n\r\n")
            let r = try c.readResponse()
            #expect(r.status == 503)
            #expect(r.headers["Retry-After"] == "1")
            #expect(r.text.contains("owner_unreachable"))
        }
    }

    /// A request that never reached the upstream may be taken over by the caller (sent to
    /// another node): the relay then answers nothing, and the caller's answer is the one seen.
    @Test func aRequestThatNeverReachedTheUpstreamIsTheCallersToTakeOver() throws {
        try withServer(handler: { _, responder in
            responder.send(HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain"], body: .bytes(Array("elsewhere".utf8))))
        }) { elsewhere in
            let other = HTTPUpstream(host: "127.0.0.1", port: elsewhere.boundPort)
            let down = HTTPUpstream(host: "127.0.0.1", port: unusedPort())
            let seen = Mutex<[HTTPClientError]>([])
            try withServer(handler: { request, responder in
                // First to the upstream that is down; taken over, and sent to the other.
                HTTPRelay(takeOverUnsent: { error in
                    seen.withLock { $0.append(error) }
                    HTTPRelay().relay(request, to: other, responder: responder)
                    return true
                }).relay(request, to: down, responder: responder)
            }) { server in
                let c = try TestClient(port: server.boundPort)
                try c.send("POST /documents/a/edits HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}")
                let r = try c.readResponse()
                #expect(r.status == 200)
                #expect(r.text == "elsewhere")
            }
            #expect(seen.withLock { $0.map(\.neverSent) } == [true])
        }
    }

    @Test func anEventStreamIsRelayedPieceByPieceAndEndsWithTheUpstreams() throws {
        let stream = ClientStreamTests.StreamingUpstream()
        try withServer(handler: stream.handler) { upstream in
            try withRelay(to: HTTPUpstream(host: "127.0.0.1", port: upstream.boundPort)) { port in
                let c = try TestClient(port: port)
                try c.send("GET /events HTTP/1.1\r\nHost: a\r\nAccept: text/event-stream\r\n\r\n")
                let head = try c.readHeadOnly()
                #expect(head.status == 200)
                #expect(head.headers["Content-Type"] == "text/event-stream")
                #expect(try c.readChunk() == Array("data: 1\n\n".utf8))
                stream.write("data: 2\n\n")
                #expect(try c.readChunk() == Array("data: 2\n\n".utf8))
                // An event the upstream wrote in two pieces is relayed whole, in one.
                stream.write("data: ")
                usleep(50_000)
                stream.write("3\n\nda")
                usleep(50_000)
                stream.write("ta: 4\n\n")
                #expect(try c.readChunk() == Array("data: 3\n\n".utf8))
                #expect(try c.readChunk() == Array("data: 4\n\n".utf8))
                stream.finish()
                #expect(try c.readChunk() == nil)
            }
        }
    }
}
