import Testing
@testable import TandemHTTP

/// Request targets (RFC 9112 §3.2) and the Host field (§3.2, RFC 3986 §3.2.2) as table rows,
/// checked like `ParserTable`'s: whole, at every split point and byte by byte.
enum StrictTargetTable {
    static func get(host: String) -> String { "GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n" }

    static let hostRows: [ParserRow] = [
        // What clients send (curl, Python, browsers, schemathesis) and what RFC 3986 allows.
        .ok("Host localhost", get(host: "localhost"), ["GET / HTTP/1.1"]),
        .ok("Host IPv4 with port", get(host: "127.0.0.1:8080"), ["GET / HTTP/1.1"]),
        .ok("Host IPv6 literal with port", get(host: "[::1]:8080"), ["GET / HTTP/1.1"], headers: [["Host=[::1]:8080"]]),
        .ok("Host IPv6 literal", get(host: "[::1]"), ["GET / HTTP/1.1"]),
        .ok("Host full IPv6", get(host: "[2001:db8:0:0:1:0:0:1]:1"), ["GET / HTTP/1.1"]),
        .ok("Host IPv6 with IPv4 tail", get(host: "[::ffff:192.0.2.128]"), ["GET / HTTP/1.1"]),
        .ok("Host IPv6 ending in ::", get(host: "[fe80::]"), ["GET / HTTP/1.1"]),
        .ok("Host IPvFuture", get(host: "[v1.fe80::a+b]"), ["GET / HTTP/1.1"]),
        .ok("Host fully qualified with trailing dot", get(host: "example.com."), ["GET / HTTP/1.1"]),
        .ok("Host upper case", get(host: "EXAMPLE.com:80"), ["GET / HTTP/1.1"]),
        .ok("Host punycode", get(host: "xn--bcher-kva.example"), ["GET / HTTP/1.1"]),
        .ok("Host unreserved and sub-delims", get(host: "a_b~c-d!$&'()*+;="), ["GET / HTTP/1.1"]),
        .ok("Host percent-encoded", get(host: "%41b%2e"), ["GET / HTTP/1.1"]),
        .ok("Host port 0", get(host: "h:0"), ["GET / HTTP/1.1"]),
        .ok("Host port 65535", get(host: "h:65535"), ["GET / HTTP/1.1"]),
        .ok("Host port with leading zeros", get(host: "h:0000000000000000000080"), ["GET / HTTP/1.1"]),
        .ok("Host empty port (port = *DIGIT)", get(host: "h:"), ["GET / HTTP/1.1"]),
        .ok("Host dotted digits are a reg-name", get(host: "999.1.1.1"), ["GET / HTTP/1.1"]),
        .ok("Host OWS trimmed", "GET / HTTP/1.1\r\nHost: \t localhost:1 \t\r\n\r\n", ["GET / HTTP/1.1"], headers: [["Host=localhost:1"]]),
        .ok("Host in HTTP/1.0", "GET / HTTP/1.0\r\nHost: h:1\r\n\r\n", ["GET / HTTP/1.0"]),

        .bad("empty Host", "GET / HTTP/1.1\r\nHost:\r\n\r\n", "400 invalid_host"),
        .bad("Host of only whitespace", "GET / HTTP/1.1\r\nHost:  \t \r\n\r\n", "400 invalid_host"),
        .bad("empty Host in HTTP/1.0", "GET / HTTP/1.0\r\nHost:\r\n\r\n", "400 invalid_host"),
        .bad("empty Host with asterisk-form", "OPTIONS * HTTP/1.1\r\nHost:\r\n\r\n", "400 invalid_host"),
        .bad("Host with a space inside", get(host: "a b"), "400 invalid_host"),
        .bad("Host with a tab inside", get(host: "a\tb"), "400 invalid_host"),
        .bad("Host list", get(host: "a,b"), "400 invalid_host"),
        .bad("Host list with OWS", get(host: "a, b"), "400 invalid_host"),
        .bad("Host list of one repeated", get(host: "h, h"), "400 invalid_host"),
        .bad("Host userinfo", get(host: "user@h"), "400 invalid_host"),
        .bad("Host userinfo with password", get(host: "user:pw@h"), "400 invalid_host"),
        .bad("Host userinfo after port", get(host: "h:80@evil"), "400 invalid_host"),
        .bad("Host with a path", get(host: "h/p"), "400 invalid_host"),
        .bad("Host with a root path", get(host: "h:80/"), "400 invalid_host"),
        .bad("Host with a query", get(host: "h?q"), "400 invalid_host"),
        .bad("Host with a fragment", get(host: "h#f"), "400 invalid_host"),
        .bad("Host URL", get(host: "http://h"), "400 invalid_host"),
        .bad("Host port 65536", get(host: "h:65536"), "400 invalid_host"),
        .bad("Host port 99999", get(host: "h:99999"), "400 invalid_host"),
        .bad("Host port past Int", get(host: "h:" + String(repeating: "9", count: 40)), "400 invalid_host"),
        .bad("Host port with a letter", get(host: "h:8o"), "400 invalid_host"),
        .bad("Host negative port", get(host: "h:-1"), "400 invalid_host"),
        .bad("Host port with plus", get(host: "h:+80"), "400 invalid_host"),
        .bad("Host two ports", get(host: "h:80:80"), "400 invalid_host"),
        .bad("Host port with space", get(host: "h: 80"), "400 invalid_host"),
        .bad("Host only a port", get(host: ":80"), "400 invalid_host"),
        .bad("Host IPv6 without brackets", get(host: "::1"), "400 invalid_host"),
        .bad("Host IPv6 unclosed", get(host: "[::1"), "400 invalid_host"),
        .bad("Host IPv6 then junk", get(host: "[::1]x"), "400 invalid_host"),
        .bad("Host IPv6 closed twice", get(host: "[::1]]"), "400 invalid_host"),
        .bad("Host empty brackets", get(host: "[]"), "400 invalid_host"),
        .bad("Host IPv6 triple colon", get(host: "[:::1]"), "400 invalid_host"),
        .bad("Host IPv6 two ::", get(host: "[1::2::3]"), "400 invalid_host"),
        .bad("Host IPv6 nine groups", get(host: "[1:2:3:4:5:6:7:8:9]"), "400 invalid_host"),
        .bad("Host IPv6 seven groups without ::", get(host: "[1:2:3:4:5:6:7]"), "400 invalid_host"),
        .bad("Host IPv6 five hex digits", get(host: "[12345::1]"), "400 invalid_host"),
        .bad("Host IPv6 leading single colon", get(host: "[:1::2]"), "400 invalid_host"),
        .bad("Host IPv6 trailing single colon", get(host: "[1::2:]"), "400 invalid_host"),
        .bad("Host IPv6 zone identifier", get(host: "[fe80::1%25eth0]"), "400 invalid_host"),
        .bad("Host IPv4 in brackets", get(host: "[1.2.3.4]"), "400 invalid_host"),
        .bad("Host IPv6 with bad IPv4 tail", get(host: "[::ffff:256.0.0.1]"), "400 invalid_host"),
        .bad("Host IPv6 with zero-led IPv4 tail", get(host: "[::ffff:01.0.0.1]"), "400 invalid_host"),
        .bad("Host IPv6 with short IPv4 tail", get(host: "[::ffff:1.2.3]"), "400 invalid_host"),
        .bad("Host IPvFuture without address", get(host: "[v1.]"), "400 invalid_host"),
        .bad("Host IPvFuture without version", get(host: "[v.x]"), "400 invalid_host"),
        .bad("Host bad percent escape", get(host: "h%zz"), "400 invalid_host"),
        .bad("Host truncated percent escape", get(host: "h%4"), "400 invalid_host"),
        .bad("Host with quotes", get(host: "\"h\""), "400 invalid_host"),
        .bad("Host with angle brackets", get(host: "<h>"), "400 invalid_host"),
        .bad("Host with backslash", get(host: "h\\x"), "400 invalid_host"),
        .bad("Host non-ASCII", Array("GET / HTTP/1.1\r\nHost: caf\u{e9}\r\n\r\n".utf8), "400 invalid_host"),
        .bad("second Host invalid", "GET / HTTP/1.1\r\nHost: h\r\nHost: a b\r\n\r\n", "400 invalid_host"),
        .bad("two valid Host fields still", "GET / HTTP/1.1\r\nHost: h\r\nHost: h:1\r\n\r\n", "400 multiple_host"),
    ]

    static let targetRows: [ParserRow] = [
        .ok("OPTIONS *", "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n", ["OPTIONS * HTTP/1.1"]),
        .ok("absolute-form", "GET http://h/x?y=1 HTTP/1.1\r\nHost: h\r\n\r\n", ["GET http://h/x?y=1 HTTP/1.1"]),
        .ok("absolute-form https with port", "GET https://h:443/x HTTP/1.1\r\nHost: h:443\r\n\r\n", ["GET https://h:443/x HTTP/1.1"]),
        .ok("absolute-form scheme in any case", "GET HtTpS://H/x HTTP/1.1\r\nHost: h\r\n\r\n", ["GET HtTpS://H/x HTTP/1.1"]),
        .ok("absolute-form without a path", "GET http://h HTTP/1.1\r\nHost: h\r\n\r\n", ["GET http://h HTTP/1.1"]),
        .ok("absolute-form with a query, no path", "GET http://h?q HTTP/1.1\r\nHost: h\r\n\r\n", ["GET http://h?q HTTP/1.1"]),
        .ok("absolute-form IPv6 authority", "GET http://[::1]:80/x HTTP/1.1\r\nHost: [::1]:80\r\n\r\n", ["GET http://[::1]:80/x HTTP/1.1"]),
        .ok("absolute-form with another Host: Host ignored", "GET http://a/x HTTP/1.1\r\nHost: b\r\n\r\n", ["GET http://a/x HTTP/1.1"]),
        .ok("absolute-form with an empty Host", "GET http://a/x HTTP/1.1\r\nHost:\r\n\r\n", ["GET http://a/x HTTP/1.1"]),
        .ok("absolute-form in HTTP/1.0 without Host", "GET http://a/x HTTP/1.0\r\n\r\n", ["GET http://a/x HTTP/1.0"]),
        .ok("origin-form with an empty first segment", "GET //h/x HTTP/1.1\r\nHost: h\r\n\r\n", ["GET //h/x HTTP/1.1"]),
        .bad("absolute-form in HTTP/1.1 without Host", "GET http://a/x HTTP/1.1\r\n\r\n", "400 missing_host"),
        .bad("absolute-form with an invalid Host", "GET http://a/x HTTP/1.1\r\nHost: a b\r\n\r\n", "400 invalid_host"),
        .bad("absolute-form with two Host fields", "GET http://a/x HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", "400 multiple_host"),
        .bad("asterisk-form with GET", "GET * HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target"),
        .bad("asterisk-form with POST", "POST * HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n", "400 invalid_target"),
        .bad("asterisk-form with lowercase options", "options * HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target"),
        .bad("asterisk then more", "OPTIONS *x HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target"),
        .bad("relative path", "GET a/b HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target"),
        .bad("query only", "GET ?q HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target"),
        .bad("fragment only", "GET #f HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target"),
        .bad("authority-form with GET", "GET h:80 HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target"),
        .bad("scheme not served", "GET ftp://h/x HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target"),
        .bad("scheme http-like", "GET httpx://h/x HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target"),
        .bad("http without //", "GET http:/h/x HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target"),
        .bad("http without authority", "GET http: HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target"),
        .bad("empty authority", "GET http:// HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target"),
        .bad("empty authority with path", "GET http:///x HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target"),
        .bad("authority with userinfo", "GET http://u@h/x HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target"),
        .bad("authority with user and password", "GET http://u:p@h/x HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target"),
        .bad("authority port too large", "GET http://h:65536/x HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target"),
        .bad("authority port overflowing", "GET http://h:\(String(repeating: "9", count: 30))/ HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target"),
        .bad("authority port not a number", "GET http://h:x/ HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target"),
        .bad("authority list", "GET http://a,b/ HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target"),
        .bad("authority with fragment", "GET http://h#f HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target"),
        .bad("authority IPv6 unclosed", "GET http://[::1/x HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target"),
        .bad("CONNECT authority-form", "CONNECT h:443 HTTP/1.1\r\nHost: h:443\r\n\r\n", "501 connect_not_supported"),
        .bad("CONNECT with userinfo", "CONNECT u@h:443 HTTP/1.1\r\nHost: h:443\r\n\r\n", "400 invalid_target"),
        .bad("good request, then a bad target", "GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET a HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target", before: ["GET /a HTTP/1.1"]),
        // Numbers bounded by value as they are read, not by how many digits they take.
        .ok("chunk size with many leading zeros", "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n\(String(repeating: "0", count: 30))3\r\nabc\r\n0\r\n\r\n",
            ["POST /c HTTP/1.1"], bodies: ["abc"]),
        .bad("chunk size 2^63 - 1: fits, but over the body limit", "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n7FFFFFFFFFFFFFFF\r\n", "413 body_too_large"),
        .bad("chunk size 2^63: refused before it overflows", "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n8000000000000000\r\n", "400 chunk_size_overflow"),
        .bad("chunk size of 64 hex digits", "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n\(String(repeating: "F", count: 64))\r\n", "400 chunk_size_overflow"),
        .ok("Content-Length with 30 leading zeros", "POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: \(String(repeating: "0", count: 30))3\r\n\r\nabc",
            ["POST /p HTTP/1.1"], bodies: ["abc"]),
        .bad("Content-Length of 19 digits", "POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 9223372036854775807\r\n\r\n", "400 invalid_content_length"),
        .bad("Content-Length of 18 nines: over the limit", "POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 999999999999999999\r\n\r\n", "413 body_too_large"),
        .bad("good request, then a bad Host", "GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: a@b\r\n\r\n", "400 invalid_host", before: ["GET /a HTTP/1.1"]),
    ]

    /// Every visible ASCII byte inside a host name: accepted exactly when RFC 3986's reg-name
    /// takes it (`,` aside). `%` and `:` have rows of their own (escape, port).
    static var generated: [ParserRow] {
        var rows: [ParserRow] = []
        let regName = Array("-._~!$&'()*+;=".utf8)
        for b in UInt8(0x21)...UInt8(0x7E) where b != UInt8(ascii: "%") && b != UInt8(ascii: ":") {
            let raw = Array("GET / HTTP/1.1\r\nHost: a".utf8) + [b] + Array("b\r\n\r\n".utf8)
            let alnum = (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122)
            if alnum || regName.contains(b) {
                rows.append(ParserRow(name: "Host byte \(b) accepted", raw: raw, expectRequests: ["GET / HTTP/1.1"], expectBodies: nil,
                                      expectHeaders: nil, expectTrailers: nil, expectContinues: 0, expectError: nil))
            } else {
                rows.append(.bad("Host byte \(b) refused", raw, "400 invalid_host"))
            }
        }
        for port in [0, 1, 80, 443, 8080, 9999, 10000, 65534, 65535] {
            rows.append(.ok("Host port \(port)", get(host: "h:\(port)"), ["GET / HTTP/1.1"]))
        }
        for port in ["65536", "70000", "99999", "100000", "655350", "4294967296", "18446744073709551616", String(repeating: "1", count: 19)] {
            rows.append(.bad("Host port \(port)", get(host: "h:\(port)"), "400 invalid_host"))
        }
        for method in ["GET", "HEAD", "POST", "PUT", "DELETE", "TRACE", "PATCH"] {
            rows.append(.bad("asterisk-form with \(method)", "\(method) * HTTP/1.1\r\nHost: h\r\n\r\n", "400 invalid_target"))
        }
        return rows
    }

    static var all: [ParserRow] { hostRows + targetRows + generated }
}

@Suite("Request targets and Host")
struct StrictTargetTableTests {
    @Test("whole input", arguments: StrictTargetTable.all)
    func whole(_ row: ParserRow) {
        ParserTableTests.check(row, ParserHarness.parse(row.raw))
    }

    @Test("every split point gives the same result", arguments: StrictTargetTable.all)
    func splits(_ row: ParserRow) {
        let whole = ParserHarness.parse(row.raw)
        for cut in 0...row.raw.count {
            let split = ParserHarness.parse([row.raw[..<cut], row.raw[cut...]])
            #expect(split == whole, "\(row.name) split at \(cut)")
            if split != whole { return }
        }
        #expect(ParserHarness.parse(row.raw.indices.map { row.raw[$0...$0] }) == whole, "\(row.name) byte by byte")
    }

    static func request(_ raw: String) throws -> HTTPRequest {
        var parser = HTTPRequestParser()
        parser.append(Array(raw.utf8))
        guard case .request(let r)? = try parser.next() else { throw ParseFailure() }
        return r
    }

    struct ParseFailure: Error {}

    /// target, path, query, host.
    static let forms: [(String, String, String?, String?)] = [
        ("/a/b?c=d", "/a/b", "c=d", "h:1"),
        ("/", "/", nil, "h:1"),
        ("http://x:8/a/b?c=d", "/a/b", "c=d", "x:8"),
        ("HTTPS://[::1]:8/a", "/a", nil, "[::1]:8"),
        ("http://x", "/", nil, "x"),
        ("http://x?q=1", "/", "q=1", "x"),
        ("http://x/?", "/", "", "x"),
        ("http://x//y", "//y", nil, "x"),
        ("*", "*", nil, "h:1"),
    ]

    @Test("in absolute-form, path and query are the URI's and its authority is the host")
    func absoluteFormPathQueryAndHost() throws {
        for (target, path, query, host) in Self.forms {
            let method = target == "*" ? "OPTIONS" : "GET"
            let r = try Self.request("\(method) \(target) HTTP/1.1\r\nHost: h:1\r\n\r\n")
            #expect(r.target == target)
            #expect(r.path == path, "\(target)")
            #expect(r.query.map(String.init) == query, "\(target)")
            #expect(r.host.map(String.init) == host, "\(target)")
        }
    }

    @Test("an HTTP/1.0 request without Host has no host")
    func noHost() throws {
        #expect(try Self.request("GET / HTTP/1.0\r\n\r\n").host == nil)
        #expect(try Self.request("GET http://a:1/ HTTP/1.0\r\n\r\n").host == "a:1")
    }

    @Test("a query value is read from an absolute-form target")
    func queryValueInAbsoluteForm() throws {
        #expect(try Self.request("GET http://a/p?x=1&y=%20z HTTP/1.1\r\nHost: a\r\n\r\n").queryValue("y") == " z")
    }

    @Test("the router answers OPTIONS * with every method it serves")
    func routerAnswersAsteriskOptions() throws {
        var router = Router()
        router.get("/a") { _ in .text("a") }
        router.post("/b") { _ in .text("b") }
        router.delete("/a") { _ in .text("a") }
        let response = try #require(RouterTests.run(router, .options, "*"))
        #expect(response.status.code == 204)
        #expect(response.headers["Allow"] == "GET, POST, DELETE, HEAD, OPTIONS")
        // `*` is not a path: any other method on it finds no route.
        #expect(RouterTests.run(router, .get, "*")?.status.code == 404)
    }

    @Test("an absolute-form target routes like its path")
    func absoluteFormRoutes() {
        var router = Router()
        router.get("/documents/:id") { req in .text("doc=\(req.parameters["id"]!) q=\(req.queryValue("x") ?? "-")") }
        #expect(RouterTests.text(RouterTests.run(router, .get, "http://h:1/documents/abc?x=1")) == "doc=abc q=1")
        #expect(RouterTests.text(RouterTests.run(router, .get, "/documents/abc")) == "doc=abc q=-")
        #expect(RouterTests.run(router, .get, "http://h/")?.status.code == 404)
    }

    @Test("a port of 100,000 digits is refused, not overflowed")
    func portIsBoundedAsRead() {
        let value = Array("h:".utf8) + [UInt8](repeating: UInt8(ascii: "9"), count: 100_000)
        value.withUnsafeBufferPointer { p in
            #expect(HTTPAuthority.problem(p, 0, p.count) == .port)
        }
    }
}
