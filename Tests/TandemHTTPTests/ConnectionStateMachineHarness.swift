import Testing
@testable import TandemHTTP

/// Drives an `HTTPConnectionStateMachine` the way `HTTPConnection` does, with a pretend
/// socket and handler, and writes down what the machine asks for, one line per action:
///
/// - `dispatch 0 GET /a` (and the body, if any): request 0 handed to the handler;
/// - `write …`: the bytes the socket took, each response head shortened to its status and
///   the `Connection` and chunked framing it announces (`[200]`, `[200 close]`,
///   `[200 chunked]`), a JSON error body to its code, a long body to its size; `(blocked)`
///   when the socket refused the rest;
/// - `stream 0`: the stream answering request 0 begins;
/// - `linger`, `close`;
/// - `stop reading`, `resume reading`: the socket's read interest changed.
struct MachineHarness {
    /// What happens to the connection.
    enum Event: CustomStringConvertible {
        /// The peer's bytes arrive.
        case receive(String)
        /// The handler answers request `n` with a text body.
        case answer(Int, String)
        /// The handler answers request `n`.
        case respond(Int, HTTPResponse)
        /// The handler answers request `n` with a streamed body.
        case answerWithStream(Int)
        /// The stream's writer queued these chunks (and `finished`: the end of the body).
        case streamed([String], finished: Bool)
        /// The socket takes `room` more bytes (nil: any amount) and says it is writable.
        case socketTakes(Int?)
        /// The timer fires `seconds` after the connection was accepted.
        case tick(at: Double)
        /// The peer's EOF.
        case peerCloses
        case shutdown
        /// The socket failed: the driver closes the connection.
        case socketFails

        var description: String {
            switch self {
            case .receive(let text): "receive \(text.debugDescription)"
            case .answer(let n, let text): "answer \(n) \(text.debugDescription)"
            case .respond(let n, let response): "respond \(n) \(response.status.code)"
            case .answerWithStream(let n): "answer \(n) with a stream"
            case .streamed(let chunks, let finished): "streamed \(chunks)\(finished ? ", finished" : "")"
            case .socketTakes(let room): "socket takes \(room.map(String.init) ?? "everything")"
            case .tick(let seconds): "tick at \(seconds) s"
            case .peerCloses: "peer closes"
            case .shutdown: "shutdown"
            case .socketFails: "socket fails"
            }
        }
    }

    static let start: UInt64 = 1_000_000_000_000
    static let timeouts = ServerCore.TimeoutNanos(
        headerRead: 2_000_000_000, bodyRead: 2_000_000_000, idle: 5_000_000_000, write: 5_000_000_000,
        minimumBodyRate: 0, minimumWriteRate: 0)
    static let date = Array("Thu, 01 Jan 2026 00:00:00 GMT".utf8)

    var machine: HTTPConnectionStateMachine
    var now = start
    /// Bytes the socket still takes before refusing (nil: any amount).
    var socketRoom: Int?
    /// The handler answers every request at once with its target, as a synchronous handler does.
    var answersAtOnce = false
    /// The access log: `GET /a 200` for each response once it is in the output.
    private(set) var logged: [String] = []
    /// Every byte the socket took, as sent.
    private(set) var wire: [UInt8] = []
    private var reading = true

    init(answersAtOnce: Bool = false, socketRoom: Int? = nil, timeouts: ServerCore.TimeoutNanos = timeouts) {
        machine = HTTPConnectionStateMachine(
            limits: HTTPLimits(maxTargetLength: 256, maxHeaderBytes: 1024, maxBodyBytes: 4096),
            remoteAddress: "test", timeouts: timeouts, now: Self.start)
        self.answersAtOnce = answersAtOnce
        self.socketRoom = socketRoom
    }

    /// Applies `event`, then performs the machine's actions until it waits; returns them.
    mutating func apply(_ event: Event) -> [String] {
        switch event {
        case .receive(let text):
            Array(text.utf8).withUnsafeBytes { machine.received($0, now: now) }
        case .answer(let n, let text):
            machine.responded(n, .text(text))
        case .respond(let n, let response):
            machine.responded(n, response)
        case .answerWithStream(let n):
            machine.responded(n, HTTPResponse(headers: ["Content-Type": "text/event-stream"], body: .stream { _ in }))
        case .streamed(let chunks, let finished):
            var framed = chunks.map { HTTPStreamChunk(Array($0.utf8)).framed }
            if finished { framed.append(StreamState.lastChunk) }
            machine.streamed(framed, finished: finished)
        case .socketTakes(let room):
            socketRoom = room
            machine.writable()
        case .tick(let seconds):
            now = Self.start + UInt64(seconds * 1_000_000_000)
            machine.tick(now: now)
        case .peerCloses:
            machine.peerClosed()
        case .shutdown:
            machine.beginShutdown(now: now)
        case .socketFails:
            _ = machine.close()
        }
        return run()
    }

    private mutating func run() -> [String] {
        var lines: [String] = []
        while true {
            switch machine.nextAction(now: now, date: Self.date) {
            case .dispatch(let request, let sequence):
                let body = request.body.isEmpty ? "" : " " + String(decoding: request.body, as: UTF8.self)
                lines.append("dispatch \(sequence) \(request.method) \(request.target)\(body)")
                // As a handler answering before it returns: the machine is mid-pass.
                if answersAtOnce { machine.responded(sequence, .text(request.target)) }
            case .log(let slot, let status, _):
                logged.append("\(slot.method) \(slot.target) \(status)")
            case .startStream(_, _, let slot, let status, _):
                logged.append("\(slot.method) \(slot.target) \(status)")
                lines.append("stream \(slot.sequence)")
            case .write:
                lines.append(write())
            case .halfCloseAndLinger:
                lines.append("linger")
            case .close:
                lines.append("close")
            case .wait:
                let wantsToRead = machine.wantsToRead && !machine.isLingering && !machine.isClosed
                if wantsToRead != reading {
                    reading = wantsToRead
                    if !machine.isClosed && !machine.isLingering {
                        lines.append(wantsToRead ? "resume reading" : "stop reading")
                    }
                }
                return lines
            }
        }
    }

    /// Writes what the socket takes, as `HTTPConnection.writeOut` does.
    private mutating func write() -> String {
        var written: [UInt8] = []
        while machine.hasUnsent {
            guard socketRoom != 0 else {
                wire += written
                machine.writeBlocked(now: now)
                return "write " + (written.isEmpty ? "nothing" : Self.summary(written)) + " (blocked)"
            }
            let n = machine.withUnsentBytes { bytes -> Int in
                let n = min(bytes.count, socketRoom ?? .max)
                written.append(contentsOf: bytes.prefix(n))
                return n
            }
            socketRoom = socketRoom.map { $0 - n }
            machine.wrote(n, now: now)
        }
        wire += written
        machine.writeDrained(now: now)
        return "write " + Self.summary(written)
    }

    /// The written bytes with each head shortened (see the type's description).
    static func summary(_ bytes: [UInt8]) -> String {
        var text = Substring(String(decoding: bytes, as: UTF8.self))
        var out = ""
        while let start = nextHead(in: text) {
            out += text[..<start.lowerBound]
            guard let end = text[start.upperBound...].firstRange(of: "\r\n\r\n") else { break }
            let lines = text[start.upperBound..<end.lowerBound].split(separator: "\r\n")
            var tags = [String(lines[0].prefix(3))]
            var length: Int?
            for line in lines.dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingPrefix(" ") }
                switch parts[0].lowercased() {
                case "connection": tags.append(String(parts[1]))
                case "transfer-encoding": tags.append(String(parts[1]))
                case "content-length": length = Int(parts[1])
                default: break
                }
            }
            out += "[" + tags.joined(separator: " ") + "]"
            text = text[end.upperBound...]
            // A HEAD answer announces a length it does not send: its body ends at the next head.
            if let length, length > 0 {
                let next = nextHead(in: text)?.lowerBound ?? text.endIndex
                let body = text[..<next].prefix(length)
                text = text.dropFirst(body.count)
                out += bodySummary(body)
            }
        }
        return out + text
    }

    /// Where the next status line begins (`HTTP/1.1 ` and a three-digit code).
    private static func nextHead(in text: Substring) -> Range<Substring.Index>? {
        var rest = text
        while let found = rest.firstRange(of: "HTTP/1.1 ") {
            let code = rest[found.upperBound...].prefix(4)
            if code.count == 4, code.prefix(3).allSatisfy(\.isNumber), code.last == " " { return found }
            rest = rest[found.upperBound...]
        }
        return nil
    }

    private static func bodySummary(_ body: Substring) -> String {
        let errorPrefix = #"{"error":{"code":""#
        if body.hasPrefix(errorPrefix) {
            return String(body.dropFirst(errorPrefix.count).prefix { $0 != "\"" })
        }
        return body.count > 64 ? "<\(body.utf8.count) bytes>" : String(body)
    }
}

/// Applies each event in turn and expects exactly the actions listed beside it.
func expectActions(
    _ steps: [(MachineHarness.Event, [String])], harness: MachineHarness = MachineHarness(),
    sourceLocation: SourceLocation = #_sourceLocation
) {
    var h = harness
    for (index, (event, expected)) in steps.enumerated() {
        let actions = h.apply(event)
        #expect(actions == expected, "step \(index + 1): \(event)", sourceLocation: sourceLocation)
    }
}

/// Request texts for the tables.
enum Raw {
    static func get(_ target: String, _ fields: String = "") -> String {
        "GET \(target) HTTP/1.1\r\nHost: t\r\n\(fields)\r\n"
    }

    static func post(_ target: String, _ body: String = "", _ fields: String = "") -> String {
        "POST \(target) HTTP/1.1\r\nHost: t\r\nContent-Length: \(body.utf8.count)\r\n\(fields)\r\n\(body)"
    }

    /// A PUT head asking `Expect: 100-continue`, its body of `length` bytes still to come.
    static func putExpecting(_ target: String, length: Int) -> String {
        "PUT \(target) HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: \(length)\r\n\r\n"
    }
}
