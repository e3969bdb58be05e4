import Testing
@testable import TandemHTTP

/// The connection's decisions as tables: each event, then exactly the actions it leads to
/// (see `MachineHarness` for how actions are written). No socket, no clock, no sleep.
@Suite("Connection state machine: pipelining and keep-alive")
struct ConnectionPipeliningTests {
    @Test func pipelinedRequestsAnsweredOutOfOrderGoOutInRequestOrder() {
        expectActions([
            (.receive(Raw.get("/a") + Raw.get("/b") + Raw.get("/c")),
             ["dispatch 0 GET /a", "dispatch 1 GET /b", "dispatch 2 GET /c"]),
            (.answer(2, "c"), []),
            (.answer(1, "b"), []),
            (.answer(0, "a"), ["write [200]a[200]b[200]c"]),
            (.receive(Raw.get("/d")), ["dispatch 3 GET /d"]),
        ])
    }

    @Test func answersGivenWhileTheRequestsAreReadGoOutInOneWrite() {
        expectActions([
            (.receive(Raw.get("/a") + Raw.get("/b")), ["dispatch 0 GET /a", "dispatch 1 GET /b", "write [200]/a[200]/b"]),
        ], harness: MachineHarness(answersAtOnce: true))
    }

    @Test func anAnswerToARequestNoLongerWaitingIsIgnored() {
        expectActions([
            (.receive(Raw.get("/a")), ["dispatch 0 GET /a"]),
            (.answer(0, "a"), ["write [200]a"]),
            (.answer(0, "again"), []),
            (.answer(5, "never asked"), []),
        ])
    }

    @Test func aSafeRequestPipelinedBehindAnUnsafeOneWaitsForItsAnswer() {
        expectActions([
            (.receive(Raw.post("/e", "x") + Raw.get("/v")), ["dispatch 0 POST /e x", "stop reading"]),
            (.answer(0, "done"), ["dispatch 1 GET /v", "write [200]done", "resume reading"]),
            (.answer(1, "v"), ["write [200]v"]),
        ])
    }

    @Test func pipelinedUnsafeRequestsReachTheHandlerWithoutWaitingForEachOther() {
        expectActions([
            (.receive(Raw.post("/1") + Raw.post("/2") + Raw.get("/v")),
             ["dispatch 0 POST /1", "dispatch 1 POST /2", "stop reading"]),
            (.answer(1, "2"), []),
            (.answer(0, "1"), ["dispatch 2 GET /v", "write [200]1[200]2", "resume reading"]),
        ])
    }

    @Test func unsafeRequestsAnsweredAtOnceHoldNothingBack() {
        expectActions([
            (.receive(Raw.post("/e") + Raw.get("/v")), ["dispatch 0 POST /e", "dispatch 1 GET /v", "write [200]/e[200]/v"]),
        ], harness: MachineHarness(answersAtOnce: true))
    }

    @Test func readingStopsAtThePipelineLimitAndResumesOnceAnswersGoOut() {
        let limit = HTTPConnectionStateMachine.maxPipelined
        let requests = (0...limit).map { Raw.get("/\($0)") }.joined()
        expectActions([
            (.receive(requests), (0..<limit).map { "dispatch \($0) GET /\($0)" } + ["stop reading"]),
            (.answer(0, "0"), ["write [200]0", "dispatch \(limit) GET /\(limit)"]),
            (.answer(1, "1"), ["write [200]1", "resume reading"]),
        ])
    }

    @Test func http11KeepsTheConnectionOpenWithoutAConnectionField() {
        expectActions([
            (.receive(Raw.get("/a")), ["dispatch 0 GET /a"]),
            (.answer(0, "a"), ["write [200]a"]),
            (.receive(Raw.get("/b")), ["dispatch 1 GET /b"]),
            (.answer(1, "b"), ["write [200]b"]),
        ])
    }

    @Test func connectionCloseIsAnsweredWithCloseDropsWhatFollowsAndLingers() {
        expectActions([
            (.receive(Raw.get("/1", "Connection: close\r\n") + Raw.get("/2")), ["dispatch 0 GET /1", "stop reading"]),
            (.answer(0, "1"), ["write [200 close]1", "linger"]),
            (.peerCloses, ["close"]),
        ])
    }

    @Test func aRequestArrivingAfterCloseIsDecidedIsNotDispatched() {
        expectActions([
            (.receive(Raw.get("/1", "Connection: close\r\n")), ["dispatch 0 GET /1", "stop reading"]),
            (.receive(Raw.get("/2")), []),
            (.answer(0, "1"), ["write [200 close]1", "linger"]),
        ])
    }

    @Test func answersBeforeAClosingOneGoOutAndTheConnectionLingersAfterIt() {
        expectActions([
            (.receive(Raw.get("/1") + Raw.get("/2", "Connection: close\r\n") + Raw.get("/3")),
             ["dispatch 0 GET /1", "dispatch 1 GET /2", "stop reading"]),
            (.answer(1, "2"), []),
            (.answer(0, "1"), ["write [200]1[200 close]2", "linger"]),
        ])
    }

    @Test func http10ClosesUnlessItAsksForKeepAlive() {
        expectActions([
            (.receive("GET /a HTTP/1.0\r\n\r\n"), ["dispatch 0 GET /a", "stop reading"]),
            (.answer(0, "a"), ["write [200 close]a", "linger"]),
        ])
    }

    @Test func http10AskingForKeepAliveIsAnsweredKeepAliveAndStaysOpen() {
        expectActions([
            (.receive("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"), ["dispatch 0 GET /a"]),
            (.answer(0, "a"), ["write [200 keep-alive]a"]),
            (.receive("GET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"), ["dispatch 1 GET /b"]),
            (.answer(1, "b"), ["write [200 keep-alive]b"]),
        ])
    }

    @Test func shutdownClosesAConnectionQuietForAWhileAtOnce() {
        expectActions([
            (.receive(Raw.get("/a")), ["dispatch 0 GET /a", "write [200]/a"]),
            (.tick(at: 1), []),
            (.shutdown, ["close"]),
        ], harness: MachineHarness(answersAtOnce: true))
    }

    @Test func shutdownClosesAJustUsedIdleConnectionOnceQuietFor100Milliseconds() {
        expectActions([
            (.receive(Raw.get("/a")), ["dispatch 0 GET /a", "write [200]/a"]),
            (.shutdown, []),
            (.tick(at: 0.05), []),
            (.tick(at: 0.1), ["close"]),
        ], harness: MachineHarness(answersAtOnce: true))
    }

    @Test func aRequestArrivingOnAnIdleConnectionJustAfterShutdownIsAnsweredWithClose() {
        expectActions([
            (.receive(Raw.get("/a")), ["dispatch 0 GET /a", "write [200]/a"]),
            (.shutdown, []),
            (.tick(at: 0.05), []),
            (.receive(Raw.get("/b")), ["dispatch 1 GET /b", "write [200 close]/b", "linger"]),
        ], harness: MachineHarness(answersAtOnce: true))
    }

    @Test func shutdownAnswersWhatIsInFlightWithCloseAndReadsNothingMore() {
        expectActions([
            (.receive(Raw.get("/a")), ["dispatch 0 GET /a"]),
            (.shutdown, []),
            (.receive(Raw.get("/b") + Raw.get("/c")), ["dispatch 1 GET /b", "stop reading"]),
            (.answer(0, "a"), ["write [200 close]a", "linger"]),
        ])
    }

    @Test func shutdownClosesAKeptAliveConnectionOnTheTickAfterItsOutputDrains() {
        expectActions([
            (.receive(Raw.get("/a")), ["dispatch 0 GET /a", "write nothing (blocked)"]),
            (.shutdown, []),
            (.socketTakes(nil), ["write [200]/a"]),
            (.tick(at: 0.1), ["close"]),
        ], harness: MachineHarness(answersAtOnce: true, socketRoom: 0))
    }

    @Test func aClosedConnectionIgnoresEveryLaterEvent() {
        expectActions([
            (.receive(Raw.get("/a")), ["dispatch 0 GET /a"]),
            (.socketFails, []),
            (.answer(0, "a"), []),
            (.receive(Raw.get("/b")), []),
            (.tick(at: 60), []),
            (.peerCloses, []),
            (.shutdown, []),
        ])
    }

    @Test func everyResponseIsLoggedOnceAsItGoesIntoTheOutput() {
        var h = MachineHarness()
        _ = h.apply(.receive(Raw.get("/a") + "HEAD /b HTTP/1.1\r\nHost: t\r\n\r\n" + Raw.get("/c")))
        _ = h.apply(.answerWithStream(2))
        _ = h.apply(.answer(1, "b"))
        #expect(h.logged.isEmpty)
        _ = h.apply(.answer(0, "a"))
        #expect(h.logged == ["GET /a 200", "HEAD /b 200", "GET /c 200"])
    }
}

@Suite("Connection state machine: 100-continue, timeouts, lingering and streams")
struct ConnectionLifecycleTests {
    // MARK: 100-continue

    @Test func continueIsSentWhenTheHeadAsksForItAndNothingIsInFlight() {
        expectActions([
            (.receive(Raw.putExpecting("/x", length: 5)), ["write [100]"]),
            (.receive("hello"), ["dispatch 0 PUT /x hello"]),
            (.answer(0, "ok"), ["write [200]ok"]),
        ])
    }

    @Test func continueWaitsForEveryEarlierResponse() {
        expectActions([
            (.receive(Raw.get("/slow") + Raw.putExpecting("/x", length: 5)), ["dispatch 0 GET /slow"]),
            (.answer(0, "slow"), ["write [200]slow[100]"]),
            (.receive("hello"), ["dispatch 1 PUT /x hello"]),
        ])
    }

    @Test func continueIsNotSentOnceTheBodyHasArrived() {
        expectActions([
            (.receive(Raw.get("/slow") + Raw.putExpecting("/x", length: 5)), ["dispatch 0 GET /slow"]),
            (.receive("hello"), ["dispatch 1 PUT /x hello"]),
            (.answer(0, "slow"), ["write [200]slow"]),
        ])
        expectActions([
            (.receive(Raw.putExpecting("/x", length: 5) + "hello"), ["dispatch 0 PUT /x hello"]),
        ])
    }

    @Test func continueBehindAClosingResponseIsNeverSent() {
        expectActions([
            (.receive(Raw.get("/a", "Connection: close\r\n") + Raw.putExpecting("/x", length: 5)),
             ["dispatch 0 GET /a", "stop reading"]),
            (.answer(0, "a"), ["write [200 close]a", "linger"]),
        ])
    }

    @Test func aBodyTooLargeIsRefusedWithoutContinueAndTheConnectionLingers() {
        expectActions([
            (.receive(Raw.putExpecting("/x", length: 999_999)), ["write [413 close]body_too_large", "linger"]),
            (.peerCloses, ["close"]),
        ])
    }

    // MARK: errors and the peer's EOF

    @Test func aParseErrorIsAnsweredThenTheConnectionLingersUntilThePeerCloses() {
        expectActions([
            (.receive("GET / HTTP/1.1\r\n\r\n"), ["write [400 close]missing_host", "linger"]),
            (.peerCloses, ["close"]),
        ])
    }

    @Test func requestsBeforeAParseErrorAreAnsweredFirst() {
        expectActions([
            (.receive(Raw.get("/a") + "G@T / HTTP/1.1\r\nHost: t\r\n\r\n" + Raw.get("/b")), ["dispatch 0 GET /a", "stop reading"]),
            (.answer(0, "a"), ["write [200]a[400 close]invalid_method", "linger"]),
        ])
    }

    @Test func aPeersHalfCloseStillGetsItsAnswersThenTheConnectionCloses() {
        expectActions([
            (.receive(Raw.get("/a") + Raw.get("/b")), ["dispatch 0 GET /a", "dispatch 1 GET /b"]),
            (.peerCloses, ["stop reading"]),
            (.answer(0, "a"), ["write [200]a"]),
            (.answer(1, "b"), ["write [200]b", "close"]),
        ])
    }

    @Test func aPeerClosingWithNothingInFlightIsClosedAtOnce() {
        expectActions([(.peerCloses, ["close"])])
    }

    @Test func aPeerClosingInTheMiddleOfARequestIsClosedAtOnce() {
        expectActions([
            (.receive("GET /a HTTP/1.1\r\nHo"), []),
            (.peerCloses, ["close"]),
        ])
    }

    // MARK: timeouts

    @Test func aConnectionThatNeverSendsAByteIsClosedAfterTheHeadTimeoutFromAccept() {
        expectActions([
            (.tick(at: 1.9), []),
            (.tick(at: 2.1), ["close"]),
        ])
    }

    @Test func anIdleConnectionIsClosedAfterTheIdleTimeout() {
        expectActions([
            (.receive(Raw.get("/a")), ["dispatch 0 GET /a"]),
            (.answer(0, "a"), ["write [200]a"]),
            (.tick(at: 4.9), []),
            (.tick(at: 5.1), ["close"]),
        ])
    }

    @Test func theIdleTimeoutClosesOnlyWhenNoRequestIsInFlight() {
        expectActions([
            (.receive(Raw.get("/a")), ["dispatch 0 GET /a"]),
            (.tick(at: 30), []),
            (.answer(0, "a"), ["write [200]a"]),
            (.tick(at: 34.9), []),
            (.tick(at: 35.1), ["close"]),
        ])
    }

    @Test func aHeadThatDoesNotArriveInTimeIsAnswered408() {
        expectActions([
            (.receive("GET / HTTP/1.1\r\nHo"), []),
            (.tick(at: 1.9), []),
            (.tick(at: 2.1), ["write [408 close]header_timeout", "linger"]),
        ])
    }

    @Test func aBodyThatStopsArrivingIsAnswered408() {
        expectActions([
            (.receive("POST /e HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc"), []),
            (.tick(at: 1.5), []),
            (.receive("de"), []),
            (.tick(at: 3.4), []),
            (.tick(at: 3.6), ["write [408 close]body_timeout", "linger"]),
        ])
    }

    @Test func aBodyTrickledSlowerThanTheMinimumRateIsCutOffThoughNeverSilent() {
        var timeouts = MachineHarness.timeouts
        timeouts.minimumBodyRate = 100
        let ten = String(repeating: "b", count: 10)
        expectActions([
            (.receive("POST /e HTTP/1.1\r\nHost: t\r\nContent-Length: 4000\r\n\r\n"), []),
            (.tick(at: 1), []),
            (.receive(ten), []),
            (.tick(at: 2), []),
            (.receive(ten), []),
            // Three seconds for 20 bytes: more than the two seconds' grace and 0.2 s at 100 B/s.
            (.tick(at: 3), ["write [408 close]body_timeout", "linger"]),
        ], harness: MachineHarness(timeouts: timeouts))
    }

    @Test func outputThePeerDoesNotTakeIsCutOffAfterTheWriteTimeout() {
        expectActions([
            (.receive(Raw.get("/a")), ["dispatch 0 GET /a", "write nothing (blocked)"]),
            (.tick(at: 4.9), []),
            (.tick(at: 5.1), ["close"]),
        ], harness: MachineHarness(answersAtOnce: true, socketRoom: 0))
    }

    @Test func readingStopsWhileAMegabyteOfOutputIsUnsent() {
        let big = String(repeating: "x", count: HTTPConnectionStateMachine.maxBufferedOutput)
        expectActions([
            (.receive(Raw.get("/big")), ["dispatch 0 GET /big"]),
            (.answer(0, big), ["write nothing (blocked)", "stop reading"]),
            (.socketTakes(nil), ["write [200]<\(big.utf8.count) bytes>", "resume reading"]),
        ], harness: MachineHarness(socketRoom: 0))
    }

    @Test func lingeringEndsAfterTwoSecondsWithoutThePeersEOF() {
        expectActions([
            (.receive(Raw.get("/a", "Connection: close\r\n")), ["dispatch 0 GET /a", "stop reading"]),
            (.answer(0, "a"), ["write [200 close]a", "linger"]),
            (.tick(at: 1.9), []),
            (.tick(at: 2.1), ["close"]),
        ])
    }

    // MARK: streamed responses

    @Test func aStreamIsWrittenChunkByChunkAndTheConnectionCarriesOnAfterIt() {
        expectActions([
            (.receive(Raw.get("/events")), ["dispatch 0 GET /events"]),
            (.answerWithStream(0), ["stream 0", "write [200 chunked]"]),
            (.streamed(["data: 1"], finished: false), ["write 7\r\ndata: 1\r\n"]),
            (.tick(at: 60), []),
            (.streamed(["data: 2"], finished: true), ["write 7\r\ndata: 2\r\n0\r\n\r\n"]),
            (.receive(Raw.get("/next")), ["dispatch 1 GET /next"]),
        ])
    }

    @Test func responsesBehindAStreamWaitForItsEnd() {
        expectActions([
            (.receive(Raw.get("/events") + Raw.get("/b")), ["dispatch 0 GET /events", "dispatch 1 GET /b"]),
            (.answer(1, "b"), []),
            (.answerWithStream(0), ["stream 0", "write [200 chunked]"]),
            (.streamed(["x"], finished: true), ["write 1\r\nx\r\n0\r\n\r\n[200]b"]),
        ])
    }

    @Test func aStreamAnsweringConnectionCloseEndsWithALingeringClose() {
        expectActions([
            (.receive(Raw.get("/events", "Connection: close\r\n")), ["dispatch 0 GET /events", "stop reading"]),
            (.answerWithStream(0), ["stream 0", "write [200 chunked close]"]),
            (.streamed([], finished: true), ["write 0\r\n\r\n", "linger"]),
        ])
    }

    @Test func shutdownDuringAStreamLetsItsEndOutThenLingers() {
        expectActions([
            (.receive(Raw.get("/events")), ["dispatch 0 GET /events"]),
            (.answerWithStream(0), ["stream 0", "write [200 chunked]"]),
            (.shutdown, []),
            (.streamed(["last"], finished: true), ["write 4\r\nlast\r\n0\r\n\r\n", "linger"]),
        ])
    }

    @Test func aPeerClosingDuringAStreamIsClosedAtOnce() {
        expectActions([
            (.receive(Raw.get("/events")), ["dispatch 0 GET /events"]),
            (.answerWithStream(0), ["stream 0", "write [200 chunked]"]),
            (.peerCloses, ["close"]),
            (.streamed(["late"], finished: false), []),
        ])
    }

    @Test func aHeadRequestAnsweredWithAStreamGetsTheHeadAlone() {
        expectActions([
            (.receive("HEAD /events HTTP/1.1\r\nHost: t\r\n\r\n" + Raw.get("/b")), ["dispatch 0 HEAD /events", "dispatch 1 GET /b"]),
            (.answer(1, "b"), []),
            (.answerWithStream(0), ["write [200][200]b"]),
        ])
    }

    @Test func aHeadRequestGetsItsLengthWithoutTheBody() {
        var h = MachineHarness()
        #expect(h.apply(.receive("HEAD /a HTTP/1.1\r\nHost: t\r\n\r\n")) == ["dispatch 0 HEAD /a"])
        #expect(h.apply(.answer(0, "abc")) == ["write [200]"])
        let wire = String(decoding: h.wire, as: UTF8.self)
        #expect(wire.hasPrefix("HTTP/1.1 200 OK\r\nServer: Tandem\r\nDate: Thu, 01 Jan 2026 00:00:00 GMT\r\n"))
        #expect(wire.hasSuffix("Content-Length: 3\r\n\r\n"))
        #expect(h.logged == ["HEAD /a 200"])
    }
}
