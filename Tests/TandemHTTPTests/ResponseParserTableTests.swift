import Testing
@testable import TandemHTTP

/// The upstream response parser as tables of raw bytes: what each yields (head, the body's
/// bytes joined, whether the connection is reusable), or the failure.
struct ResponseParserTableTests {
    struct Outcome: Equatable {
        var status: Int
        var body: String
        var reusable: Bool?
    }

    /// Feeds `raw` whole and then one byte at a time: both must read the same.
    static func read(_ raw: String, expectsBody: Bool = true, close: Bool = false) throws(HTTPResponseParser.Failure) -> Outcome {
        let whole = try run([Array(raw.utf8)], expectsBody: expectsBody, close: close)
        let bytes = try run(Array(raw.utf8).map { [$0] }, expectsBody: expectsBody, close: close)
        #expect(whole == bytes)
        return whole
    }

    static func run(_ pieces: [[UInt8]], expectsBody: Bool, close: Bool) throws(HTTPResponseParser.Failure) -> Outcome {
        var parser = HTTPResponseParser(expectsBody: expectsBody, maxHeadBytes: 256)
        var events: [HTTPResponseParser.Event] = []
        for piece in pieces { events += try parser.feed(piece) }
        if close { events += try parser.finish() }
        var outcome = Outcome(status: 0, body: "", reusable: nil)
        for event in events {
            switch event {
            case .head(let head): outcome.status = head.status
            case .body(let bytes): outcome.body += String(decoding: bytes, as: UTF8.self)
            case .end(let reusable): outcome.reusable = reusable
            }
        }
        return outcome
    }

    static let good: [(String, String, Bool, Bool, Outcome)] = [
        ("a length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", true, false, Outcome(status: 200, body: "hello", reusable: true)),
        ("no reason", "HTTP/1.1 201\r\nContent-Length: 0\r\n\r\n", true, false, Outcome(status: 201, body: "", reusable: true)),
        ("connection close", "HTTP/1.1 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 2\r\n\r\nok", true, false,
         Outcome(status: 200, body: "ok", reusable: false)),
        ("chunked, extension and trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n6\r\n world\r\n0\r\nX-T: 1\r\n\r\n",
         true, false, Outcome(status: 200, body: "hello world", reusable: true)),
        ("chunked in capitals", "HTTP/1.1 200 OK\r\nTransfer-Encoding: CHUNKED\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n", true, false,
         Outcome(status: 200, body: "0123456789", reusable: true)),
        ("204 has no body", "HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\n", true, false, Outcome(status: 204, body: "", reusable: true)),
        ("304 has no body", "HTTP/1.1 304 Not Modified\r\n\r\n", true, false, Outcome(status: 304, body: "", reusable: true)),
        ("HEAD has no body", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", false, false, Outcome(status: 200, body: "", reusable: true)),
        ("100 Continue is skipped", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx", true, false,
         Outcome(status: 200, body: "x", reusable: true)),
        ("until close", "HTTP/1.0 200 OK\r\n\r\nall of it", true, true, Outcome(status: 200, body: "all of it", reusable: false)),
        ("HTTP/1.0 closes unless asked", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", true, false,
         Outcome(status: 200, body: "ok", reusable: false)),
        ("HTTP/1.0 with keep-alive", "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok", true, false,
         Outcome(status: 200, body: "ok", reusable: true)),
        ("the same length twice", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok", true, false,
         Outcome(status: 200, body: "ok", reusable: true)),
    ]

    @Test(arguments: good.indices)
    func readsWhatTheServerSent(_ i: Int) throws {
        let (_, raw, expectsBody, close, expected) = Self.good[i]
        #expect(try Self.read(raw, expectsBody: expectsBody, close: close) == expected, "\(Self.good[i].0)")
    }

    static let bad: [(String, String, Bool, String)] = [
        ("length and chunked", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", false, "length_and_chunked"),
        ("two lengths", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", false, "bad_content_length"),
        ("a signed length", "HTTP/1.1 200 OK\r\nContent-Length: +3\r\n\r\n", false, "bad_content_length"),
        ("chunked not last", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", false, "bad_transfer_encoding"),
        ("a bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", false, "bad_chunk_size"),
        ("a chunk without its CRLF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nxyz", false, "bad_chunk_end"),
        ("HTTP/2 status line", "HTTP/2 200 OK\r\n\r\n", false, "bad_status_line"),
        ("a two-digit status", "HTTP/1.1 20 OK\r\n\r\n", false, "bad_status_line"),
        ("a header without a colon", "HTTP/1.1 200 OK\r\nBroken\r\n\r\n", false, "bad_header"),
        ("a space before the colon", "HTTP/1.1 200 OK\r\nName : v\r\n\r\n", false, "bad_header"),
        ("a head too large", "HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 300) + "\r\n\r\n", false, "head_too_large"),
        ("a body cut short", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel", true, "truncated_response"),
        ("closed before any byte", "", true, "closed_before_response"),
    ]

    @Test(arguments: bad.indices)
    func refusesWhatCannotBeTrusted(_ i: Int) {
        let (name, raw, close, code) = Self.bad[i]
        #expect(throws: HTTPResponseParser.Failure(code: code), "\(name)") { try Self.read(raw, close: close) }
    }

    /// Two responses in one read: the second waits in the buffer for `reset`.
    @Test func pipelinedResponsesAreReadOneAfterTheOther() throws {
        var parser = HTTPResponseParser()
        let events = try parser.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nno".utf8))
        #expect(events.count == 3)
        #expect(events.last == .end(reusable: true))
        parser.reset(expectsBody: true)
        let second = try parser.feed([])
        guard case .head(let head) = second.first else { Issue.record("no head"); return }
        #expect(head.status == 404)
        #expect(head.reason == "Not Found")
        #expect(second.dropFirst().first == .body(Array("no".utf8)))
        #expect(second.last == .end(reusable: true))
    }

    @Test func headerNamesAreLowercasedAndValuesTrimmed() throws {
        var parser = HTTPResponseParser()
        let events = try parser.feed(Array("HTTP/1.1 200 OK\r\nETag:  \"r7\" \r\nContent-Length: 0\r\n\r\n".utf8))
        guard case .head(let head) = events.first else { Issue.record("no head"); return }
        #expect(head.value("etag") == "\"r7\"")
        #expect(head.headers.map(\.name) == ["etag", "content-length"])
    }

    @Test func bytesPastTheResponseAreCountedAndTheVersionKept() throws {
        var parser = HTTPResponseParser()
        let events = try parser.feed(Array("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\nxyz".utf8))
        guard case .head(let head) = events.first else { Issue.record("no head"); return }
        #expect(head.minorVersion == 0)
        #expect(parser.bufferedByteCount == 3)
    }
}
