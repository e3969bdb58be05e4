import Testing
import TandemHTTP

/// What parsing a byte string yields, in a form that compares exactly.
struct ParseOutcome: Equatable, CustomStringConvertible {
    struct Request: Equatable {
        var method: String
        var target: String
        var version: String
        var headers: [String]
        var body: String
        var trailers: [String]
    }
    var requests: [Request] = []
    var continues = 0
    var error: String?

    var description: String {
        "requests: \(requests.map { "\($0.method) \($0.target) \($0.version) \($0.headers) body=\($0.body.debugDescription) trailers=\($0.trailers)" }), continues: \(continues), error: \(error ?? "none")"
    }
}

enum ParserHarness {
    static let limits = HTTPLimits(maxTargetLength: 64, maxHeaderBytes: 256, maxBodyBytes: 100)

    static func drain(_ parser: inout HTTPRequestParser, into outcome: inout ParseOutcome) {
        while outcome.error == nil {
            do {
                guard let event = try parser.next() else { return }
                switch event {
                case .continueExpected:
                    outcome.continues += 1
                case .request(let r):
                    outcome.requests.append(.init(
                        method: r.method.rawValue, target: r.target, version: r.version.description,
                        headers: r.headers.map { "\($0.name)=\($0.value)" },
                        body: String(decoding: r.body, as: UTF8.self),
                        trailers: r.trailers.map { "\($0.name)=\($0.value)" }))
                }
            } catch {
                outcome.error = "\(error.status.code) \(error.code)"
            }
        }
    }

    /// Feeds `pieces` one after another, draining after each.
    static func parse(_ pieces: [ArraySlice<UInt8>]) -> ParseOutcome {
        var parser = HTTPRequestParser(limits: limits)
        var outcome = ParseOutcome()
        for piece in pieces {
            parser.append(piece)
            drain(&parser, into: &outcome)
            if outcome.error != nil { break }
        }
        return outcome
    }

    static func parse(_ bytes: [UInt8]) -> ParseOutcome { parse([bytes[...]]) }
}

/// One table row: raw request bytes and either the requests they parse to or the error.
struct ParserRow: CustomTestStringConvertible, Sendable {
    var name: String
    var raw: [UInt8]
    /// "requests" rows: "METHOD target HTTP/x.y" per request, plus optional body/trailer checks.
    var expectRequests: [String]
    var expectBodies: [String]?
    var expectHeaders: [[String]]?
    var expectTrailers: [[String]]?
    var expectContinues: Int
    var expectError: String?

    var testDescription: String { name }

    static func ok(_ name: String, _ raw: String, _ requests: [String], bodies: [String]? = nil,
                   headers: [[String]]? = nil, trailers: [[String]]? = nil, continues: Int = 0) -> ParserRow {
        ParserRow(name: name, raw: Array(raw.utf8), expectRequests: requests, expectBodies: bodies,
                  expectHeaders: headers, expectTrailers: trailers, expectContinues: continues, expectError: nil)
    }

    static func bad(_ name: String, _ raw: String, _ error: String, before requests: [String] = []) -> ParserRow {
        bad(name, Array(raw.utf8), error, before: requests)
    }

    static func bad(_ name: String, _ raw: [UInt8], _ error: String, before requests: [String] = []) -> ParserRow {
        ParserRow(name: name, raw: raw, expectRequests: requests, expectBodies: nil, expectHeaders: nil,
                  expectTrailers: nil, expectContinues: 0, expectError: error)
    }

    /// A row whose bytes are not a complete request: no request, no error.
    static func incomplete(_ name: String, _ raw: String) -> ParserRow {
        ParserRow(name: name, raw: Array(raw.utf8), expectRequests: [], expectBodies: nil, expectHeaders: nil,
                  expectTrailers: nil, expectContinues: 0, expectError: nil)
    }
}

let H = "Host: h\r\n"

enum ParserTable {
    static let fixed: [ParserRow] = [
        // Request lines.
        .ok("simple GET", "GET / HTTP/1.1\r\n\(H)\r\n", ["GET / HTTP/1.1"], bodies: [""], headers: [["Host=h"]]),
        .ok("HTTP/1.0 without Host", "GET /a HTTP/1.0\r\n\r\n", ["GET /a HTTP/1.0"]),
        .ok("query string", "GET /a?b=c&d HTTP/1.1\r\n\(H)\r\n", ["GET /a?b=c&d HTTP/1.1"]),
        .ok("custom token method", "PROPFIND /x HTTP/1.1\r\n\(H)\r\n", ["PROPFIND /x HTTP/1.1"]),
        .ok("method with symbols", "M-1.X_!~ /x HTTP/1.1\r\n\(H)\r\n", ["M-1.X_!~ /x HTTP/1.1"]),
        .ok("asterisk target", "OPTIONS * HTTP/1.1\r\n\(H)\r\n", ["OPTIONS * HTTP/1.1"]),
        .ok("absolute-form target", "GET http://h/x HTTP/1.1\r\n\(H)\r\n", ["GET http://h/x HTTP/1.1"]),
        .ok("HTTP/1.2 served as 1.1", "GET / HTTP/1.2\r\n\(H)\r\n", ["GET / HTTP/1.1"]),
        .ok("HTTP/1.9 served as 1.1", "GET / HTTP/1.9\r\n\(H)\r\n", ["GET / HTTP/1.1"]),
        .ok("leading CRLF ignored", "\r\n\r\nGET / HTTP/1.1\r\n\(H)\r\n", ["GET / HTTP/1.1"]),
        .ok("target at the limit", "GET /\(String(repeating: "a", count: 63)) HTTP/1.1\r\n\(H)\r\n", ["GET /\(String(repeating: "a", count: 63)) HTTP/1.1"]),
        .bad("target over the limit", "GET /\(String(repeating: "a", count: 64)) HTTP/1.1\r\n\(H)\r\n", "414 target_too_long"),
        .bad("target over the limit, head unfinished", "GET /\(String(repeating: "a", count: 200))", "414 target_too_long"),
        .bad("HTTP/2.0", "GET / HTTP/2.0\r\n\(H)\r\n", "505 version_not_supported"),
        .bad("HTTP/0.9 style version", "GET / HTTP/0.9\r\n\(H)\r\n", "505 version_not_supported"),
        .bad("HTTP/3.0", "GET / HTTP/3.0\r\n\(H)\r\n", "505 version_not_supported"),
        .bad("lowercase http", "GET / http/1.1\r\n\(H)\r\n", "400 invalid_version"),
        .bad("two-digit minor", "GET / HTTP/1.10\r\n\(H)\r\n", "400 invalid_version"),
        .bad("version missing", "GET /\r\n\(H)\r\n", "400 invalid_request_line"),
        .bad("HTTP/1 only", "GET / HTTP/1\r\n\(H)\r\n", "400 invalid_version"),
        .bad("trailing space after version", "GET / HTTP/1.1 \r\n\(H)\r\n", "400 invalid_version"),
        .bad("two spaces after method", "GET  / HTTP/1.1\r\n\(H)\r\n", "400 invalid_request_line"),
        .bad("two spaces before version", "GET /  HTTP/1.1\r\n\(H)\r\n", "400 invalid_version"),
        .bad("leading space", " GET / HTTP/1.1\r\n\(H)\r\n", "400 invalid_request_line"),
        .bad("tab separator", "GET\t/ HTTP/1.1\r\n\(H)\r\n", "400 invalid_method"),
        .bad("empty request line", "\n\r\n", "400 bare_lf"),
        .bad("space inside target", "GET /a b HTTP/1.1\r\n\(H)\r\n", "400 invalid_version"),
        .bad("non-ASCII target", Array("GET /\u{e9} HTTP/1.1\r\n\(H)\r\n".utf8), "400 invalid_target"),
        .bad("DEL in target", "GET /a\u{7f} HTTP/1.1\r\n\(H)\r\n", "400 invalid_target"),
        .bad("bare LF after request line", "GET / HTTP/1.1\n\(H)\r\n", "400 bare_lf"),
        .bad("bare LF after a field", "GET / HTTP/1.1\r\nHost: h\n\r\n", "400 bare_lf"),
        .bad("bare LF only", "GET / HTTP/1.1\nHost: h\n\n", "400 bare_lf"),
        .bad("bare CR in request line", "GET /\r HTTP/1.1\r\n\(H)\r\n", "400 bare_cr"),
        .bad("bare CR in method", "G\rET / HTTP/1.1\r\n\(H)\r\n", "400 bare_cr"),
        .bad("bare CR in field value", "GET / HTTP/1.1\r\nHost: h\rx\r\n\r\n", "400 bare_cr"),
        .bad("bare CR in field name", "GET / HTTP/1.1\r\nHo\rst: h\r\n\r\n", "400 bare_cr"),
        .bad("bare CR ending the version", "GET / HTTP/1.1\r\r\n\(H)\r\n", "400 bare_cr"),

        // Field lines.
        .ok("OWS trimmed", "GET / HTTP/1.1\r\nHost:   h \t\r\nX-A:\tb c \r\n\r\n", ["GET / HTTP/1.1"], headers: [["Host=h", "X-A=b c"]]),
        .ok("empty value", "GET / HTTP/1.1\r\n\(H)X-E:\r\n\r\n", ["GET / HTTP/1.1"], headers: [["Host=h", "X-E="]]),
        .ok("obs-text in value", "GET / HTTP/1.1\r\n\(H)X-U: caf\u{e9}\r\n\r\n", ["GET / HTTP/1.1"], headers: [["Host=h", "X-U=caf\u{e9}"]]),
        .ok("tab inside value", "GET / HTTP/1.1\r\n\(H)X-T: a\tb\r\n\r\n", ["GET / HTTP/1.1"], headers: [["Host=h", "X-T=a\tb"]]),
        .ok("field order kept", "GET / HTTP/1.1\r\nB: 1\r\n\(H)A: 2\r\nB: 3\r\n\r\n", ["GET / HTTP/1.1"], headers: [["B=1", "Host=h", "A=2", "B=3"]]),
        .bad("empty Host refused: an http URI needs a host", "GET / HTTP/1.1\r\nHost:\r\n\r\n", "400 invalid_host"),
        .ok("lowercase host", "GET / HTTP/1.1\r\nhost: h\r\n\r\n", ["GET / HTTP/1.1"]),
        .bad("space before colon", "GET / HTTP/1.1\r\nHost : h\r\n\r\n", "400 whitespace_before_colon"),
        .bad("tab before colon", "GET / HTTP/1.1\r\nHost\t: h\r\n\r\n", "400 whitespace_before_colon"),
        .bad("obs-fold with space", "GET / HTTP/1.1\r\n\(H)X-A: a\r\n b\r\n\r\n", "400 obsolete_line_folding"),
        .bad("obs-fold with tab", "GET / HTTP/1.1\r\n\(H)X-A: a\r\n\tb\r\n\r\n", "400 obsolete_line_folding"),
        .bad("first field folded", "GET / HTTP/1.1\r\n Host: h\r\n\r\n", "400 obsolete_line_folding"),
        .bad("no colon", "GET / HTTP/1.1\r\n\(H)Nocolon\r\n\r\n", "400 missing_colon"),
        .bad("empty name", "GET / HTTP/1.1\r\n\(H): v\r\n\r\n", "400 invalid_field_name"),
        .bad("NUL in value", "GET / HTTP/1.1\r\n\(H)X: a\u{0}b\r\n\r\n", "400 invalid_field_value"),
        .bad("DEL in value", "GET / HTTP/1.1\r\n\(H)X: a\u{7f}b\r\n\r\n", "400 invalid_field_value"),
        .bad("missing Host in 1.1", "GET / HTTP/1.1\r\nX: y\r\n\r\n", "400 missing_host"),
        .bad("two Host fields", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "400 multiple_host"),
        .bad("two equal Host fields", "GET / HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n", "400 multiple_host"),
        .bad("two Host in 1.0", "GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", "400 multiple_host"),
        .bad("header section too large", "GET / HTTP/1.1\r\n\(H)X: \(String(repeating: "v", count: 300))\r\n\r\n", "431 headers_too_large"),
        .bad("header section too large, unfinished", "GET / HTTP/1.1\r\n\(H)X: \(String(repeating: "v", count: 300))", "431 headers_too_large"),
        .bad("many small fields", "GET / HTTP/1.1\r\n\(H)" + String(repeating: "A: b\r\n", count: 60) + "\r\n", "431 headers_too_large"),

        // Content-Length.
        .ok("Content-Length body", "POST /p HTTP/1.1\r\n\(H)Content-Length: 5\r\n\r\nhello", ["POST /p HTTP/1.1"], bodies: ["hello"]),
        .ok("Content-Length 0", "POST /p HTTP/1.1\r\n\(H)Content-Length: 0\r\n\r\n", ["POST /p HTTP/1.1"], bodies: [""]),
        .ok("leading zeros", "POST /p HTTP/1.1\r\n\(H)Content-Length: 003\r\n\r\nabc", ["POST /p HTTP/1.1"], bodies: ["abc"]),
        .ok("equal duplicates accepted", "POST /p HTTP/1.1\r\n\(H)Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc", ["POST /p HTTP/1.1"], bodies: ["abc"]),
        .ok("equal list accepted", "POST /p HTTP/1.1\r\n\(H)Content-Length: 3, 3\r\n\r\nabc", ["POST /p HTTP/1.1"], bodies: ["abc"]),
        .ok("body at the limit", "POST /p HTTP/1.1\r\n\(H)Content-Length: 100\r\n\r\n\(String(repeating: "b", count: 100))", ["POST /p HTTP/1.1"], bodies: [String(repeating: "b", count: 100)]),
        .ok("body with CRLF inside", "POST /p HTTP/1.1\r\n\(H)Content-Length: 4\r\n\r\n\r\n\r\n", ["POST /p HTTP/1.1"], bodies: ["\r\n\r\n"]),
        .incomplete("body not complete", "POST /p HTTP/1.1\r\n\(H)Content-Length: 10\r\n\r\nabc"),
        .incomplete("head not complete", "GET / HTTP/1.1\r\n\(H)"),
        .incomplete("only CRLFs", "\r\n\r\n\r\n"),
        .bad("differing duplicates", "POST /p HTTP/1.1\r\n\(H)Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", "400 content_length_conflict"),
        .bad("differing list", "POST /p HTTP/1.1\r\n\(H)Content-Length: 3, 4\r\n\r\nabcd", "400 content_length_conflict"),
        .bad("negative length", "POST /p HTTP/1.1\r\n\(H)Content-Length: -1\r\n\r\n", "400 invalid_content_length"),
        .bad("plus sign", "POST /p HTTP/1.1\r\n\(H)Content-Length: +3\r\n\r\nabc", "400 invalid_content_length"),
        .bad("hex length", "POST /p HTTP/1.1\r\n\(H)Content-Length: 0x3\r\n\r\nabc", "400 invalid_content_length"),
        .bad("empty length", "POST /p HTTP/1.1\r\n\(H)Content-Length:\r\n\r\n", "400 invalid_content_length"),
        .bad("space inside length", "POST /p HTTP/1.1\r\n\(H)Content-Length: 1 2\r\n\r\n", "400 invalid_content_length"),
        .bad("overflowing length", "POST /p HTTP/1.1\r\n\(H)Content-Length: 99999999999999999999999\r\n\r\n", "400 invalid_content_length"),
        .bad("length over the limit", "POST /p HTTP/1.1\r\n\(H)Content-Length: 101\r\n\r\n", "413 body_too_large"),
        .bad("huge length before any body", "POST /p HTTP/1.1\r\n\(H)Content-Length: 999999999\r\n\r\n", "413 body_too_large"),

        // Transfer-Encoding.
        .ok("chunked", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", ["POST /c HTTP/1.1"], bodies: ["hello world"]),
        .ok("chunked, uppercase hex", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n", ["POST /c HTTP/1.1"], bodies: ["0123456789"]),
        .ok("chunked, leading zeros", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n0003\r\nabc\r\n000\r\n\r\n", ["POST /c HTTP/1.1"], bodies: ["abc"]),
        .ok("chunk extensions", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n3;name=value\r\nabc\r\n2 ; a=\"q\" ;b\r\nde\r\n0;last\r\n\r\n", ["POST /c HTTP/1.1"], bodies: ["abcde"]),
        .ok("trailers", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\nX-Sum: 42\r\nX-B:  two \r\n\r\n", ["POST /c HTTP/1.1"], bodies: ["a"], trailers: [["X-Sum=42", "X-B=two"]]),
        .ok("empty chunked body", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", ["POST /c HTTP/1.1"], bodies: [""]),
        .ok("TE case-insensitive", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: ChUnKeD\r\n\r\n0\r\n\r\n", ["POST /c HTTP/1.1"], bodies: [""]),
        .ok("TE with empty list members", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: , chunked\r\n\r\n0\r\n\r\n", ["POST /c HTTP/1.1"], bodies: [""]),
        .ok("chunked body at the limit", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n64\r\n\(String(repeating: "z", count: 100))\r\n0\r\n\r\n", ["POST /c HTTP/1.1"], bodies: [String(repeating: "z", count: 100)]),
        .bad("CL and TE", "POST /c HTTP/1.1\r\n\(H)Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "400 content_length_with_transfer_encoding"),
        .bad("TE and CL", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", "400 content_length_with_transfer_encoding"),
        .bad("TE in HTTP/1.0", "POST /c HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "400 transfer_encoding_http10"),
        .bad("chunked not last", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked, gzip\r\n\r\n", "400 transfer_encoding_not_chunked"),
        .bad("only gzip", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: gzip\r\n\r\n", "400 transfer_encoding_not_chunked"),
        .bad("identity", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: identity\r\n\r\n", "400 transfer_encoding_not_chunked"),
        .bad("chunked twice", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked, chunked\r\n\r\n", "400 chunked_repeated"),
        .bad("chunked in two fields", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", "400 chunked_repeated"),
        .bad("gzip then chunked", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: gzip, chunked\r\n\r\n", "501 unsupported_transfer_coding"),
        .bad("chunked then empty TE", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\nTransfer-Encoding: x\r\n\r\n", "400 transfer_encoding_not_chunked"),
        .bad("chunked with quoted", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: \"chunked\"\r\n\r\n", "400 transfer_encoding_not_chunked"),
        .bad("non-hex chunk size", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\nZ\r\nabc\r\n0\r\n\r\n", "400 invalid_chunk_size"),
        .bad("empty chunk size", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n\r\nabc\r\n0\r\n\r\n", "400 invalid_chunk_size"),
        .bad("0x prefix", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n0x3\r\nabc\r\n0\r\n\r\n", "400 invalid_chunk_size"),
        .bad("negative chunk size", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n-3\r\nabc\r\n0\r\n\r\n", "400 invalid_chunk_size"),
        .bad("chunk size overflow", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFF\r\n", "400 chunk_size_overflow"),
        .bad("chunk over the limit", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n65\r\n", "413 body_too_large"),
        .bad("chunks summing over the limit", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n32\r\n\(String(repeating: "a", count: 50))\r\n33\r\n", "413 body_too_large"),
        .bad("missing CRLF after data", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n", "400 chunk_missing_crlf"),
        .bad("LF only after data", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n3\r\nabc\n0\r\n\r\n", "400 chunk_missing_crlf"),
        .bad("data longer than size", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", "400 chunk_missing_crlf"),
        .bad("bare LF after chunk size", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n", "400 bare_lf"),
        .bad("bare CR in chunk size line", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n3\rx\r\nabc\r\n0\r\n\r\n", "400 bare_cr"),
        .bad("space inside chunk size", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n1 2\r\n", "400 invalid_chunk_size"),
        .bad("CTL in chunk extension", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n3;a\u{1}\r\nabc\r\n0\r\n\r\n", "400 invalid_chunk_extension"),
        .bad("obs-fold in trailer", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n0\r\nX: a\r\n b\r\n\r\n", "400 obsolete_line_folding"),
        .bad("space before colon in trailer", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n0\r\nX : a\r\n\r\n", "400 whitespace_before_colon"),
        .bad("bare LF ending trailers", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n0\r\n\n", "400 bare_lf"),
        .bad("trailers too large", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n0\r\n" + String(repeating: "T: vvvvvvvvvv\r\n", count: 30) + "\r\n", "431 trailers_too_large"),

        // Expect.
        .ok("100-continue with CL", "POST /p HTTP/1.1\r\n\(H)Expect: 100-continue\r\nContent-Length: 2\r\n\r\nhi", ["POST /p HTTP/1.1"], bodies: ["hi"], continues: 1),
        .ok("100-continue case-insensitive", "POST /p HTTP/1.1\r\n\(H)Expect: 100-Continue\r\nContent-Length: 2\r\n\r\nhi", ["POST /p HTTP/1.1"], bodies: ["hi"], continues: 1),
        .ok("100-continue chunked", "POST /p HTTP/1.1\r\n\(H)Expect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n", ["POST /p HTTP/1.1"], bodies: ["hi"], continues: 1),
        .ok("100-continue without body: no interim", "GET / HTTP/1.1\r\n\(H)Expect: 100-continue\r\n\r\n", ["GET / HTTP/1.1"]),
        .ok("100-continue ignored in 1.0", "POST /p HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi", ["POST /p HTTP/1.0"], bodies: ["hi"]),
        .bad("unknown expectation", "POST /p HTTP/1.1\r\n\(H)Expect: 200-ok\r\nContent-Length: 2\r\n\r\nhi", "417 unsupported_expectation"),
        .bad("100-continue too large: 413", "POST /p HTTP/1.1\r\n\(H)Expect: 100-continue\r\nContent-Length: 1000\r\n\r\n", "413 body_too_large"),

        // Pipelining.
        .ok("three pipelined", "GET /1 HTTP/1.1\r\n\(H)\r\nGET /2 HTTP/1.1\r\n\(H)\r\nGET /3 HTTP/1.1\r\n\(H)\r\n", ["GET /1 HTTP/1.1", "GET /2 HTTP/1.1", "GET /3 HTTP/1.1"]),
        .ok("pipelined with bodies", "POST /1 HTTP/1.1\r\n\(H)Content-Length: 1\r\n\r\naPOST /2 HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n1\r\nb\r\n0\r\n\r\nGET /3 HTTP/1.1\r\n\(H)\r\n",
            ["POST /1 HTTP/1.1", "POST /2 HTTP/1.1", "GET /3 HTTP/1.1"], bodies: ["a", "b", ""]),
        .ok("CRLF between pipelined", "GET /1 HTTP/1.1\r\n\(H)\r\n\r\nGET /2 HTTP/1.1\r\n\(H)\r\n", ["GET /1 HTTP/1.1", "GET /2 HTTP/1.1"]),
        .bad("good then smuggled", "GET /1 HTTP/1.1\r\n\(H)\r\nPOST /2 HTTP/1.1\r\n\(H)Content-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "400 content_length_with_transfer_encoding", before: ["GET /1 HTTP/1.1"]),
        .bad("good then bad version", "GET /1 HTTP/1.1\r\n\(H)\r\nGET /2 HTTP/2.0\r\n\(H)\r\n", "505 version_not_supported", before: ["GET /1 HTTP/1.1"]),
    ]

    /// Bytes that are not tchar, each tried in a method and in a field name.
    static let nonTokenBytes: [UInt8] = Array("\"(),/:;<=>?@[\\]{}".utf8) + [0x01, 0x7F, 0x80, 0xFF]

    /// CTLs other than HTAB (and CR/LF, which have their own errors) in a field value.
    static let valueCTLs: [UInt8] = Array(0x00...0x08) + [0x0B, 0x0C] + Array(0x0E...0x1F) + [0x7F]

    static var generated: [ParserRow] {
        var rows: [ParserRow] = []
        for b in nonTokenBytes {
            rows.append(.bad("method byte \(b)", Array("GE".utf8) + [b] + Array("T / HTTP/1.1\r\n\(H)\r\n".utf8), "400 invalid_method"))
            if b != UInt8(ascii: ":") { rows.append(.bad("field-name byte \(b)", Array("GET / HTTP/1.1\r\n\(H)X-".utf8) + [b] + Array("A: v\r\n\r\n".utf8), "400 invalid_field_name")) }
        }
        for b in valueCTLs {
            rows.append(.bad("field-value CTL \(b)", Array("GET / HTTP/1.1\r\n\(H)X: a".utf8) + [b] + Array("b\r\n\r\n".utf8), "400 invalid_field_value"))
            rows.append(.bad("target CTL \(b)", Array("GET /a".utf8) + [b] + Array(" HTTP/1.1\r\n\(H)\r\n".utf8), "400 invalid_target"))
        }
        for b in UInt8(0x21)...UInt8(0x7E) where b != UInt8(ascii: ":") {
            let name = [UInt8(ascii: "X")] + [b]
            if ParserTable.isTchar(b) {
                rows.append(ParserRow(name: "field-name tchar \(b)", raw: Array("GET / HTTP/1.1\r\n\(H)".utf8) + name + Array(": v\r\n\r\n".utf8),
                                      expectRequests: ["GET / HTTP/1.1"], expectBodies: nil,
                                      expectHeaders: [["Host=h", String(decoding: name, as: UTF8.self) + "=v"]],
                                      expectTrailers: nil, expectContinues: 0, expectError: nil))
            }
        }
        for size in [1, 2, 9, 15, 16, 31, 64, 99] {
            let data = String(repeating: "x", count: size)
            let hex = String(size, radix: 16)
            rows.append(.ok("one chunk of \(size)", "POST /c HTTP/1.1\r\n\(H)Transfer-Encoding: chunked\r\n\r\n\(hex)\r\n\(data)\r\n0\r\n\r\n",
                            ["POST /c HTTP/1.1"], bodies: [data]))
            rows.append(.ok("Content-Length \(size)", "PUT /l HTTP/1.1\r\n\(H)Content-Length: \(size)\r\n\r\n\(data)", ["PUT /l HTTP/1.1"], bodies: [data]))
        }
        for method in ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT", "get"] {
            rows.append(.ok("method \(method)", "\(method) /m HTTP/1.1\r\n\(H)\r\n", ["\(method) /m HTTP/1.1"]))
        }
        // A malformed version after a good request of either version: the good one is
        // parsed, then the bad line fails.
        for version in ["HTTP/1.0", "HTTP/1.1"] {
            for v in ["HTTP/1.x", "HTTPS/1.1", "HTTP/11", "HTTP/1.1.1", "HTTP /1.1", "XTTP/1.1", "HTTP/a.1"] {
                rows.append(.bad("version \(v) after a \(version) request", "GET /ok \(version)\r\n\(H)\r\nGET / \(v)\r\n\(H)\r\n",
                                 "400 invalid_version", before: ["GET /ok \(version)"]))
            }
        }
        return rows
    }

    static func isTchar(_ b: UInt8) -> Bool {
        let s = Array("!#$%&'*+-.^_`|~".utf8)
        return (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || s.contains(b)
    }

    static var all: [ParserRow] { fixed + generated }
}

@Suite("HTTPRequestParser table")
struct ParserTableTests {
    static func check(_ row: ParserRow, _ outcome: ParseOutcome) {
        #expect(outcome.error == row.expectError, "\(row.name): \(outcome)")
        #expect(outcome.requests.map { "\($0.method) \($0.target) \($0.version)" } == row.expectRequests, "\(row.name): \(outcome)")
        if let bodies = row.expectBodies {
            #expect(outcome.requests.map(\.body) == bodies, "\(row.name)")
        }
        if let headers = row.expectHeaders {
            #expect(outcome.requests.map(\.headers) == headers, "\(row.name)")
        }
        if let trailers = row.expectTrailers {
            #expect(outcome.requests.map(\.trailers) == trailers, "\(row.name)")
        }
        #expect(outcome.continues == row.expectContinues, "\(row.name)")
    }

    @Test("whole input", arguments: ParserTable.all)
    func whole(_ row: ParserRow) {
        Self.check(row, ParserHarness.parse(row.raw))
    }

    /// Rows up to 400 bytes get every 2-way split, 3-way splits and byte-by-byte feeding;
    /// longer ones (the "too large" rows) every 2-way split, which is linear in their size.
    @Test("every split point and byte by byte give the same result", arguments: ParserTable.all.filter { $0.raw.count <= 2048 })
    func splits(_ row: ParserRow) {
        let whole = ParserHarness.parse(row.raw)
        for cut in 0...row.raw.count {
            let split = ParserHarness.parse([row.raw[..<cut], row.raw[cut...]])
            #expect(split == whole, "\(row.name) split at \(cut)")
            if split != whole { return }
        }
        if row.raw.count > 400 { return }
        for cut in stride(from: 0, through: row.raw.count, by: 7) {
            let cut2 = min(row.raw.count, cut + 3)
            let three = ParserHarness.parse([row.raw[..<cut], row.raw[cut..<cut2], row.raw[cut2...]])
            #expect(three == whole, "\(row.name) split at \(cut) and \(cut2)")
        }
        let bytewise = ParserHarness.parse(row.raw.indices.map { row.raw[$0...$0] })
        #expect(bytewise == whole, "\(row.name) byte by byte")
    }

    @Test func tableIsLarge() {
        #expect(ParserTable.all.count >= 200)
    }

    @Test func failedParserStaysFailed() throws {
        var parser = HTTPRequestParser(limits: ParserHarness.limits)
        parser.append(Array("GET / HTTP/2.0\r\n\(H)\r\n".utf8))
        #expect(throws: HTTPParseError.self) { try parser.next() }
        parser.append(Array("GET / HTTP/1.1\r\n\(H)\r\n".utf8))
        #expect(throws: HTTPParseError.self) { try parser.next() }
    }

    @Test func errorsMapToJSONResponses() throws {
        var parser = HTTPRequestParser(limits: ParserHarness.limits)
        parser.append(Array("POST / HTTP/1.1\r\n\(H)Content-Length: 1\r\nContent-Length: 2\r\n\r\n".utf8))
        do {
            _ = try parser.next()
            Issue.record("expected an error")
        } catch {
            let response = error.response
            #expect(response.status.code == 400)
            #expect(String(decoding: response.bodyBytes ?? [], as: UTF8.self) == #"{"error":{"code":"content_length_conflict","message":"Content-Length values differ"}}"#)
        }
    }

    @Test func largeBodyAcrossManyAppends() throws {
        var parser = HTTPRequestParser(limits: HTTPLimits(maxBodyBytes: 1 << 20))
        let body = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        parser.append(Array("PUT /big HTTP/1.1\r\nHost: h\r\nContent-Length: \(body.count)\r\n\r\n".utf8))
        var offset = 0
        var got: HTTPRequest?
        while offset < body.count {
            let end = min(body.count, offset + 8191)
            parser.append(body[offset..<end])
            offset = end
            if let event = try parser.next(), case .request(let r) = event { got = r }
        }
        #expect(got?.body == body)
    }
}
