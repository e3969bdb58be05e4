import Testing
@testable import TandemHTTP

/// The upstream connection's machine as tables: events in, actions out, written compactly
/// (`head 200`, `body ok`, `finish reusable`, `fail connectionClosed, no answer byte`).
struct ClientStateMachineTests {
    typealias Machine = HTTPClientStateMachine

    static let timeouts = Machine.Timeouts(connect: 1_000, head: 5_000, idle: 10_000)
    static let get = "GET / HTTP/1.1\r\nHost: n2\r\n\r\n"

    enum Event {
        case connected, connectFailed(Int32)
        case start(String, expectsBody: Bool = true, keepAlive: Bool = true, bodyIdle: UInt64? = nil)
        /// The socket took this many bytes of the request (all of them: -1).
        case wrote(Int)
        case writable
        case received(String)
        /// The same bytes, one read per byte.
        case trickled(String)
        case eof
        case reset
        case tick(UInt64)
        case cancel
    }

    /// Runs `events` from a new connection at time 0; each read and write at time 1.
    static func run(_ events: [Event], _ machine: inout Machine) -> [String] {
        var out: [String] = []
        for event in events {
            switch event {
            case .connected: machine.connected(now: 1)
            case .connectFailed(let code): machine.connectFailed(code)
            case .start(let raw, let expectsBody, let keepAlive, let bodyIdle):
                machine.start(.init(bytes: Array(raw.utf8), expectsBody: expectsBody, keepAlive: keepAlive, bodyIdleTimeout: bodyIdle), now: 1)
            case .wrote(let n): machine.wrote(n < 0 ? pendingWrite(out) : n, now: 1)
            case .writable: machine.writable()
            case .received(let text): machine.received(Array(text.utf8), now: 1)
            case .trickled(let text):
                for byte in text.utf8 {
                    machine.received([byte], now: 1)
                    out += drain(&machine)
                }
            case .eof: machine.peerClosed(now: 1)
            case .reset: machine.ioFailed(104)
            case .tick(let now): machine.tick(now: now)
            case .cancel: machine.cancel()
            }
            out += drain(&machine)
        }
        return merged(out)
    }

    static func run(_ events: [Event]) -> [String] {
        var machine = Machine(timeouts: timeouts, maxHeadBytes: 256, now: 0)
        return run(events, &machine)
    }

    /// The byte count of the last write asked for.
    static func pendingWrite(_ out: [String]) -> Int {
        guard let last = out.last(where: { $0.hasPrefix("write ") }) else { return 0 }
        return last.utf8.count - 6
    }

    static func drain(_ machine: inout Machine) -> [String] {
        var out: [String] = []
        while let action = machine.nextAction() {
            switch action {
            case .write(let bytes): out.append("write " + String(decoding: bytes, as: UTF8.self))
            case .head(let head): out.append("head \(head.status)")
            case .body(let bytes): out.append("body " + String(decoding: bytes, as: UTF8.self))
            case .finish(let reusable): out.append(reusable ? "finish reusable" : "finish close")
            case .fail(let error): out.append("fail \(error.kind), " + (error.answerStarted ? "answer started" : "no answer byte"))
            case .close: out.append("close")
            }
        }
        return out
    }

    /// Adjacent body pieces as one (a trickled body comes byte by byte).
    static func merged(_ out: [String]) -> [String] {
        var result: [String] = []
        for line in out {
            if line.hasPrefix("body "), let last = result.last, last.hasPrefix("body ") {
                result[result.count - 1] = last + line.dropFirst(5)
            } else {
                result.append(line)
            }
        }
        return result
    }

    /// Connected, `GET /` sent whole: what the answer's events then give.
    static let sent: [Event] = [.start(get), .connected, .wrote(-1)]

    static let answers: [(String, [Event], [String])] = [
        ("a length", sent + [.received("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")],
         ["head 200", "body ok", "finish reusable"]),
        ("a length over two reads", sent + [.received("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhe"), .received("llo")],
         ["head 200", "body hello", "finish reusable"]),
        ("chunked, byte by byte", sent + [.trickled("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=1\r\nde\r\n0\r\n\r\n")],
         ["head 200", "body abcde", "finish reusable"]),
        ("delimited by the close", sent + [.received("HTTP/1.1 200 OK\r\n\r\nabc"), .received("def"), .eof],
         ["head 200", "body abcdef", "finish close"]),
        ("the upstream says close", sent + [.received("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")],
         ["head 200", "finish close"]),
        ("the request says close", [.start(get, keepAlive: false), .connected, .wrote(-1), .received("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")],
         ["write " + get, "head 200", "finish close"]),
        ("HTTP/1.0 without keep-alive", sent + [.received("HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx")],
         ["head 200", "body x", "finish close"]),
        ("HEAD has no body", [.start("HEAD / HTTP/1.1\r\n\r\n", expectsBody: false), .connected, .wrote(-1),
                              .received("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")],
         ["write HEAD / HTTP/1.1\r\n\r\n", "head 200", "finish reusable"]),
        ("204 has no body", sent + [.received("HTTP/1.1 204 No Content\r\n\r\n")], ["head 204", "finish reusable"]),
        ("304 has no body", sent + [.received("HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n")], ["head 304", "finish reusable"]),
        ("100 Continue is skipped", sent + [.received("HTTP/1.1 100 Continue\r\n\r\n"), .received("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n")],
         ["head 201", "finish reusable"]),
        ("EOF before the head", sent + [.eof], ["fail connectionClosed, no answer byte"]),
        ("a reset before the head", sent + [.reset], ["fail io(104), no answer byte"]),
        ("EOF in the head", sent + [.received("HTTP/1.1 200"), .eof], ["fail connectionClosed, answer started"]),
        ("EOF in the body", sent + [.received("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhe"), .eof],
         ["head 200", "body he", "fail connectionClosed, answer started"]),
        ("a reset in a body delimited by the close", sent + [.received("HTTP/1.1 200 OK\r\n\r\nhe"), .reset],
         ["head 200", "body he", "fail io(104), answer started"]),
        ("the head is late", sent + [.tick(5_002)], ["fail headTimeout, no answer byte"]),
        ("the head is not late yet", sent + [.tick(5_001)], []),
        ("a malformed status line", sent + [.received("HTTP/2 200 OK\r\n\r\n")], ["fail malformedResponse(\"bad_status_line\"), answer started"]),
        ("a head too large", sent + [.received("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 300))],
         ["fail malformedResponse(\"head_too_large\"), answer started"]),
        ("bytes after the answer", sent + [.received("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxHTTP/1.1 200")],
         ["head 200", "body x", "finish close"]),
        ("an answer before the request is written", [.start(get), .connected, .wrote(4), .received("HTTP/1.1 413 Too Large\r\nContent-Length: 0\r\n\r\n")],
         ["write " + get, "head 413", "finish close"]),
        ("a partial write resumed", [.start(get), .connected, .wrote(4), .writable],
         ["write " + get, "write " + String(get.dropFirst(4))]),
        ("the connect fails", [.start(get), .connectFailed(111)], ["fail connectFailed(111), no answer byte"]),
        ("the connect is late", [.start(get), .tick(1_001)], ["fail connectTimeout, no answer byte"]),
        ("a body silent too long", [.start(get, bodyIdle: 100), .connected, .wrote(-1), .received("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nab"), .tick(102)],
         ["write " + get, "head 200", "body ab", "fail bodyTimeout, answer started"]),
        ("a stream may stay silent", sent + [.received("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n"), .tick(1_000_000)],
         ["head 200", "body ab"]),
        ("cancelled in the body", sent + [.received("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nab"), .cancel, .received("cd"), .eof],
         ["head 200", "body ab", "close"]),
    ]

    @Test(arguments: answers.indices)
    func eachAnswerGivesItsActions(_ i: Int) {
        let (name, events, expected) = Self.answers[i]
        var actions = Self.run(events)
        // The rows that start with `sent` all begin with the same write.
        if actions.first == "write " + Self.get && expected.first?.hasPrefix("write ") != true { actions.removeFirst() }
        #expect(actions == expected, "\(name)")
    }

    @Test func aReusableConnectionCarriesTheNextRequest() {
        var machine = Machine(timeouts: Self.timeouts, maxHeadBytes: 256, now: 0)
        let answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        #expect(Self.run(Self.sent + [.received(answer)], &machine) == ["write " + Self.get, "head 200", "body ok", "finish reusable"])
        #expect(machine.isIdle)
        let second = "GET /2 HTTP/1.1\r\n\r\n"
        #expect(Self.run([.start(second), .wrote(-1), .received("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")], &machine)
            == ["write " + second, "head 404", "finish reusable"])
        #expect(machine.isIdle)
    }

    @Test func anIdleConnectionClosesOnEOFOnStrayBytesAndAfterItsIdleTimeout() {
        let answer = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
        for (last, expected) in [(Event.eof, "close"), (.received("HTTP/1.1 408"), "close"), (.tick(10_002), "close")] {
            var machine = Machine(timeouts: Self.timeouts, maxHeadBytes: 256, now: 0)
            #expect(Self.run(Self.sent + [.received(answer)], &machine).last == "finish reusable")
            #expect(Self.run([.tick(10_001)], &machine) == [])
            #expect(Self.run([last], &machine) == [expected])
            #expect(machine.isClosed)
        }
    }

    @Test func aClosedMachineIgnoresEveryEvent() {
        var machine = Machine(timeouts: Self.timeouts, maxHeadBytes: 256, now: 0)
        #expect(Self.run(Self.sent + [.eof], &machine).last == "fail connectionClosed, no answer byte")
        #expect(Self.run([.received("HTTP/1.1 200 OK\r\n\r\n"), .eof, .reset, .tick(1 << 40), .writable, .cancel], &machine) == [])
    }

    @Test func theSocketIsWatchedForWritingOnlyWhileConnectingOrWithOutputLeft() {
        var machine = Machine(timeouts: Self.timeouts, maxHeadBytes: 256, now: 0)
        #expect(machine.wantsWritable)
        _ = Self.run([.start(Self.get), .connected, .wrote(4)], &machine)
        #expect(machine.wantsWritable)
        _ = Self.run([.wrote(Self.get.utf8.count - 4)], &machine)
        #expect(!machine.wantsWritable)
        #expect(machine.state == .awaitingHead)
    }
}
