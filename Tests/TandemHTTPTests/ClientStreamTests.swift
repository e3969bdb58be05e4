import Dispatch
import Glibc
import Synchronization
import Testing
@testable import TandemHTTP

/// Streamed answers through the pool: delivered as they come, cancelled by the caller,
/// timed out and cut by the loop's end (`ClientRelayTests` relays them).
struct ClientStreamTests {
    /// A server whose `/events` answer is a stream left open: the test writes and finishes
    /// it through `writer`; `closed` fires when the stream ends for any reason.
    final class StreamingUpstream: Sendable {
        let writer = Mutex<HTTPStreamWriter?>(nil)
        let closed = DispatchSemaphore(value: 0)

        var handler: HTTPHandler {
            { [self] _, responder in
                responder.send(HTTPResponse(headers: ["Content-Type": "text/event-stream"], body: .stream { writer in
                    writer.onClose { self.closed.signal() }
                    self.writer.withLock { $0 = writer }
                    writer.write(Array("data: 1\n\n".utf8))
                }))
            }
        }

        func write(_ text: String) { writer.withLock { _ = $0?.write(Array(text.utf8)) } }
        func finish() { writer.withLock { $0?.finish() } }
    }

    static let events = HTTPClientRequest(method: .get, target: "/events", headers: ["Accept": "text/event-stream"], bodyIdleTimeout: nil)

    @Test func aStreamedAnswerIsDeliveredPieceByPieceAsItArrives() throws {
        let stream = StreamingUpstream()
        try withUpstream(handler: stream.handler) { upstream, client in
            let recorder = Recorder()
            client.run { pool in pool.send(Self.events, to: upstream, handler: recorder.handler("s")) }
            // Each piece arrives while the stream is still open: nothing waits for its end.
            #expect(recorder.wait { $0.contains("s body data: 1\n\n") })
            stream.write("data: 2\n\n")
            #expect(recorder.wait { $0.contains("s body data: 2\n\n") })
            #expect(!recorder.lines.contains { $0.hasPrefix("s end") })
            stream.finish()
            #expect(recorder.waitForEnd("s"))
            #expect(recorder.lines("s") == ["head 200", "body data: 1\n\n", "body data: 2\n\n", "end ok"])
            // A chunked stream ends cleanly: its connection is kept.
            #expect(client.connectionCount(to: upstream) == (1, 1))
        }
    }

    /// Long-lived answers take connections of their own, outside the per-upstream limit: with
    /// a limit of one connection, two open streams and a short request all go through at once.
    @Test func longLivedStreamsDoNotHoldUpShortRequests() throws {
        let streams = [StreamingUpstream(), StreamingUpstream()]
        let count = Mutex(0)
        try withServer(handler: { request, responder in
            if request.path == "/events" {
                let k = count.withLock { c -> Int in defer { c += 1 }; return c }
                return streams[min(k, 1)].handler(request, responder)
            }
            responder.send(.text("short"))
        }) { server in
            let upstream = HTTPUpstream(host: "127.0.0.1", port: server.boundPort)
            try withClientLoop({ $0.maxConnectionsPerUpstream = 1; $0.maxQueuedPerUpstream = 0 }) { client in
                let recorder = Recorder()
                var longLived = Self.events
                longLived.longLived = true
                let stream = longLived
                client.run { pool in
                    pool.send(stream, to: upstream, handler: recorder.handler("s1"))
                    pool.send(stream, to: upstream, handler: recorder.handler("s2"))
                }
                #expect(recorder.wait { $0.contains("s1 body data: 1\n\n") && $0.contains("s2 body data: 1\n\n") })
                client.run { pool in pool.send(HTTPClientRequest(method: .get, target: "/short"), to: upstream, handler: recorder.handler("r")) }
                #expect(recorder.waitForEnd("r"))
                #expect(recorder.lines("r") == ["head 200", "body short", "end ok"])
                for s in streams { s.finish() }
                #expect(recorder.waitForEnd("s1") && recorder.waitForEnd("s2"))
            }
        }
    }

    @Test func cancellingMidStreamClosesTheConnectionAndEndsTheUpstreamsStream() throws {
        let stream = StreamingUpstream()
        try withUpstream(handler: stream.handler) { upstream, client in
            let recorder = Recorder()
            let task = Mutex<HTTPClientTask?>(nil)
            client.run { pool in
                // Cancelled from its own body callback, as a relay whose client left would.
                let sent = pool.send(Self.events, to: upstream, handler: recorder.handler("c", onBody: { _ in
                    task.withLock { $0?.cancel() }
                }))
                task.withLock { $0 = sent }
            }
            #expect(recorder.wait { $0.contains("c body data: 1\n\n") })
            #expect(client.connectionCount(to: upstream) == (0, 0))
            // The upstream notices once a write fails: its stream closes.
            var closed = false
            for _ in 0..<200 where !closed {
                stream.write("data: tick\n\n")
                closed = stream.closed.wait(timeout: .now() + .milliseconds(20)) == .success
            }
            #expect(closed)
            // Nothing more reached the handler, not even an end.
            #expect(recorder.lines("c") == ["head 200", "body data: 1\n\n"])
            #expect(task.withLock { $0?.isCancelled } == true)
        }
    }

    @Test func aQueuedRequestCancelledNeverReachesTheUpstream() throws {
        let stream = StreamingUpstream()
        try withServer(handler: stream.handler) { server in
            let upstream = HTTPUpstream(host: "127.0.0.1", port: server.boundPort)
            try withClientLoop({ $0.maxConnectionsPerUpstream = 1 }) { client in
                let recorder = Recorder()
                client.run { pool in
                    pool.send(Self.events, to: upstream, handler: recorder.handler("first"))
                    pool.send(Self.events, to: upstream, handler: recorder.handler("queued")).cancel()
                }
                #expect(recorder.wait { $0.contains("first body data: 1\n\n") })
                stream.finish()
                #expect(recorder.waitForEnd("first"))
                usleep(100_000)
                #expect(recorder.lines("queued").isEmpty)
                #expect(client.connectionCount(to: upstream) == (1, 1))
            }
        }
    }

    @Test func aRequestQueuedBehindALongStreamFailsAfterTheQueueWait() throws {
        let stream = StreamingUpstream()
        try withServer(handler: stream.handler) { server in
            let upstream = HTTPUpstream(host: "127.0.0.1", port: server.boundPort)
            try withClientLoop({ $0.maxConnectionsPerUpstream = 1; $0.maxQueueWait = .milliseconds(200) }) { client in
                let recorder = Recorder()
                client.run { pool in
                    pool.send(Self.events, to: upstream, handler: recorder.handler("stream"))
                    pool.send(Self.events, to: upstream, handler: recorder.handler("queued"))
                }
                #expect(recorder.waitForEnd("queued"))
                #expect(recorder.lines("queued") == ["end queueTimeout"])
                #expect(recorder.lines("stream") == ["head 200", "body data: 1\n\n"])
            }
        }
    }

    @Test func anUpstreamThatNeverAnswersTimesOutAfterTheHeadTimeout() throws {
        try withServer(handler: { _, _ in }) { server in
            let upstream = HTTPUpstream(host: "127.0.0.1", port: server.boundPort)
            try withClientLoop({ $0.headTimeout = .milliseconds(300) }) { client in
                let recorder = Recorder()
                let started = DispatchTime.now()
                client.run { pool in pool.send(HTTPClientRequest(method: .get, target: "/never"), to: upstream, handler: recorder.handler("t")) }
                #expect(recorder.waitForEnd("t"))
                let waited = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
                #expect(recorder.lines("t") == ["end headTimeout"])
                #expect(waited >= 0.3 && waited < 2)
            }
        }
    }

    @Test func aSilentBodyTimesOutOnlyWhenTheRequestSetsABodyIdleTimeout() throws {
        let stream = StreamingUpstream()
        try withUpstream(handler: stream.handler) { upstream, client in
            let recorder = Recorder()
            let timed = HTTPClientRequest(method: .get, target: "/events", bodyIdleTimeout: .milliseconds(200))
            client.run { pool in
                pool.send(timed, to: upstream, handler: recorder.handler("timed"))
                pool.send(Self.events, to: upstream, handler: recorder.handler("open"))
            }
            #expect(recorder.waitForEnd("timed"))
            #expect(recorder.lines("timed") == ["head 200", "body data: 1\n\n", "end bodyTimeout started"])
            usleep(300_000)
            #expect(recorder.lines("open") == ["head 200", "body data: 1\n\n"])
        }
    }

    @Test func theLoopsEndFailsARequestInFlight() throws {
        let stream = StreamingUpstream()
        try withUpstream(handler: stream.handler) { upstream, client in
            let recorder = Recorder()
            client.run { pool in pool.send(Self.events, to: upstream, handler: recorder.handler("s")) }
            #expect(recorder.wait { $0.contains("s body data: 1\n\n") })
            client.stop()
            #expect(recorder.lines("s") == ["head 200", "body data: 1\n\n", "end shutdown started"])
        }
    }
}
