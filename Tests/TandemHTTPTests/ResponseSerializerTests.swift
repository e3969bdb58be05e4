import Testing
@testable import TandemHTTP

/// Response heads, byte for byte: the fields a handler sets, the ones the connection owns
/// (dropped), and the ones that would split the response (dropped).
@Suite struct ResponseSerializerTests {
    static let date = Array("Tue, 24 Nov 2026 03:00:00 GMT".utf8)
    static let prefix = "HTTP/1.1 200 OK\r\nServer: Tandem\r\nDate: Tue, 24 Nov 2026 03:00:00 GMT\r\n"

    static func head(_ headers: HTTPHeaders, _ framing: ResponseSerializer.Framing = .length(2), status: HTTPStatus = .ok,
                     connection: StaticString? = nil, after existing: String = "") -> String {
        var out = Array(existing.utf8)
        ResponseSerializer.appendHead(status: status, headers: headers, framing: framing, connection: connection, date: date, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static let cases: [(HTTPHeaders, String)] = [
        ([:], ""),
        (["Content-Type": "application/json"], "Content-Type: application/json\r\n"),
        (["Content-Type": "a", "Vary": "Accept-Encoding", "Cache-Control": "no-store"],
         "Content-Type: a\r\nVary: Accept-Encoding\r\nCache-Control: no-store\r\n"),
        // Owned by the connection, whatever the case.
        (["Date": "x", "server": "x", "CONNECTION": "x", "Content-Length": "9", "transfer-encoding": "chunked", "X": "y"], "X: y\r\n"),
        // Same lengths as owned names, other names: kept.
        (["Data": "1", "Serve_": "2", "Connectio_": "3"], "Data: 1\r\nServe_: 2\r\nConnectio_: 3\r\n"),
        // Would split the response or the field: dropped, the others kept.
        (["X-A": "1\r\nSet-Cookie: evil", "X-B": "ok"], "X-B: ok\r\n"),
        (["X-A\r\nEvil": "1", "X-C": "2"], "X-C: 2\r\n"),
        (["X:A": "1", "X-Lf": "a\nb", "X-Nul": "a\u{0}b", "X-D": "3"], "X-D: 3\r\n"),
        (["": "empty name"], ""),
        // Non-ASCII values pass through as UTF-8; long values are not cut.
        (["X-Name": "Zoë — ✓"], "X-Name: Zoë — ✓\r\n"),
        (["X-Long": String(repeating: "v", count: 5000)], "X-Long: \(String(repeating: "v", count: 5000))\r\n"),
    ]

    @Test(arguments: cases.indices)
    func fieldsAreWrittenOrDropped(_ index: Int) {
        let (headers, lines) = Self.cases[index]
        #expect(Self.head(headers) == Self.prefix + lines + "Content-Length: 2\r\n\r\n")
    }

    @Test func framingAndConnection() {
        let h: HTTPHeaders = ["X": "1"]
        #expect(Self.head(h, .chunked, connection: "close") == Self.prefix + "X: 1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
        #expect(Self.head(h, .none, connection: "keep-alive") == Self.prefix + "X: 1\r\nConnection: keep-alive\r\n\r\n")
        #expect(Self.head(h, .length(Int.max)) == Self.prefix + "X: 1\r\nContent-Length: \(Int.max)\r\n\r\n")
        #expect(Self.head(h, .length(0)) == Self.prefix + "X: 1\r\nContent-Length: 0\r\n\r\n")
    }

    @Test func statusLineAndAppendingAfterEarlierOutput() {
        let notFound = Self.head([:], .length(0), status: .notFound, after: "earlier bytes|")
        #expect(notFound == "earlier bytes|HTTP/1.1 404 Not Found\r\nServer: Tandem\r\nDate: Tue, 24 Nov 2026 03:00:00 GMT\r\nContent-Length: 0\r\n\r\n")
    }

    // MARK: the shared JSON header lists

    @Test func smallJSONGetsTheSharedVaryList() {
        let small = HTTPResponse.json(Array(#"{"ok":true}"#.utf8))
        #expect(small.headers.sharesStorage(with: HTTPResponse.jsonHeaders))
        let out = ContentEncoding.negotiate(requestHeaders: ["Accept-Encoding": "gzip"], response: small)
        #expect(out.headers.sharesStorage(with: HTTPResponse.jsonHeadersVaryingByEncoding))
        #expect(out.headers.values("Vary") == ["Accept-Encoding"])
        #expect(out.headers["Content-Encoding"] == nil)
        #expect(out.bodyBytes == small.bodyBytes)
    }

    @Test func largeJSONIsStillCompressed() {
        let body = Array(("[" + String(repeating: #"{"revision":1,"ops":["a"]},"#, count: 200) + "0]").utf8)
        let out = ContentEncoding.negotiate(requestHeaders: ["Accept-Encoding": "gzip"], response: .json(body))
        #expect(out.headers["Content-Encoding"] == "gzip")
        #expect(out.headers.values("Vary") == ["Accept-Encoding"])
        #expect(Gzip.decompress(out.bodyBytes ?? [], limit: 1 << 20) == body)
    }

    @Test func sharingIsIdentityNotEquality() {
        let equal: HTTPHeaders = ["Content-Type": "application/json; charset=utf-8"]
        #expect(equal == HTTPResponse.jsonHeaders)
        #expect(!equal.sharesStorage(with: HTTPResponse.jsonHeaders))
        // An equal list built by hand takes the general path, to the same result.
        let out = ContentEncoding.negotiate(requestHeaders: [:], response: HTTPResponse(status: .ok, headers: equal, body: .bytes([1])))
        #expect(out.headers == HTTPResponse.jsonHeadersVaryingByEncoding)
    }
}
