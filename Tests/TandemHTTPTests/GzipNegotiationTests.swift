import Testing
@testable import TandemHTTP
import TandemTestSupport

@Suite struct GzipNegotiationTests {
    static let bigText = Array(String(repeating: "compressible text, ", count: 200).utf8)  // 3800 bytes

    func request(acceptEncoding: String?) -> HTTPRequest {
        var headers = HTTPHeaders()
        if let acceptEncoding { headers.add("Accept-Encoding", acceptEncoding) }
        return HTTPRequest(method: .get, target: "/x", headers: headers)
    }

    func response(_ contentType: String, size: Int = bigText.count, etag: String? = nil) -> HTTPResponse {
        var headers: HTTPHeaders = ["Content-Type": contentType]
        if let etag { headers.add("ETag", etag) }
        return HTTPResponse(status: .ok, headers: headers, body: .bytes(Array(Self.bigText.prefix(size))))
    }

    static let acceptCases: [(String?, Bool)] = [
        (nil, false),
        ("", false),
        ("gzip", true),
        ("GZIP", true),
        ("x-gzip", true),
        ("gzip, deflate, br", true),
        ("br;q=1.0, gzip;q=0.8, *;q=0.1", true),
        ("gzip;q=0", false),
        ("gzip; q=0.000", false),
        ("gzip;q=0.001", true),
        ("gzip;q=1", true),
        ("gzip;q=1.000", true),
        ("gzip;q=abc", false),
        ("*", true),
        ("*;q=0", false),
        ("identity", false),
        ("identity;q=1, deflate", false),
        ("br, deflate", false),
        ("*, gzip;q=0", false),   // the explicit gzip entry overrides the wildcard
        ("gzip;q=0, *", false),
        ("*;q=0, gzip", true),
        ("deflate;q=0.5 , gzip ; q=0.5", true),
    ]

    @Test(arguments: acceptCases)
    func acceptEncodingDecidesCompression(header: String?, expected: Bool) throws {
        let out = ContentEncoding.negotiate(request: request(acceptEncoding: header), response: response("text/html; charset=utf-8"))
        #expect((out.headers["Content-Encoding"] == "gzip") == expected)
        #expect(out.headers.hasToken("Accept-Encoding", in: "Vary"))
        let body = try #require(out.bodyBytes)
        if expected {
            #expect(Gzip.decompress(body, limit: 1 << 20) == Self.bigText)
        } else {
            #expect(body == Self.bigText)
        }
    }

    static let typeCases: [(String, Bool)] = [
        ("text/html; charset=utf-8", true),
        ("text/plain", true),
        ("text/css", true),
        ("TEXT/JavaScript", true),
        ("application/json", true),
        ("application/json; charset=utf-8", true),
        ("application/problem+json", true),
        ("application/javascript", true),
        ("application/xml", true),
        ("application/atom+xml", true),
        ("image/svg+xml", true),
        ("application/wasm", true),
        ("text/event-stream", false),
        ("image/png", false),
        ("image/jpeg", false),
        ("application/zip", false),
        ("application/gzip", false),
        ("font/woff2", false),
        ("application/octet-stream", false),
        ("video/mp4", false),
        ("nonsense", false),
    ]

    @Test(arguments: typeCases)
    func contentTypeDecidesCompressionAndVary(contentType: String, compressible: Bool) {
        let out = ContentEncoding.negotiate(request: request(acceptEncoding: "gzip"), response: response(contentType))
        #expect((out.headers["Content-Encoding"] == "gzip") == compressible)
        #expect(out.headers.hasToken("Accept-Encoding", in: "Vary") == compressible)
    }

    @Test(arguments: [(0, false), (1023, false), (1024, true), (3800, true)])
    func smallBodiesStayIdentityButVary(size: Int, compressed: Bool) {
        let out = ContentEncoding.negotiate(request: request(acceptEncoding: "gzip"), response: response("application/json", size: size))
        #expect((out.headers["Content-Encoding"] == "gzip") == compressed)
        #expect(out.headers.values("Vary") == ["Accept-Encoding"])
    }

    @Test func minimumSizeIsAParameter() {
        let out = ContentEncoding.negotiate(
            request: request(acceptEncoding: "gzip"), response: response("text/plain", size: 200), minimumSize: 100)
        #expect(out.headers["Content-Encoding"] == "gzip")
    }

    @Test func strongETagBecomesWeakOnlyWhenCompressed() {
        let zipped = ContentEncoding.negotiate(request: request(acceptEncoding: "gzip"), response: response("text/css", etag: "\"abc\""))
        #expect(zipped.headers["ETag"] == "W/\"abc\"")
        let weakAlready = ContentEncoding.negotiate(request: request(acceptEncoding: "gzip"), response: response("text/css", etag: "W/\"abc\""))
        #expect(weakAlready.headers["ETag"] == "W/\"abc\"")
        let plain = ContentEncoding.negotiate(request: request(acceptEncoding: nil), response: response("text/css", etag: "\"abc\""))
        #expect(plain.headers["ETag"] == "\"abc\"")
        #expect(EntityTag.matches(ifNoneMatch: "W/\"abc\"", etag: "\"abc\""))
    }

    @Test func existingEncodingStatusAndNoTransformAreRespected() {
        var encoded = response("text/plain")
        encoded.headers.add("Content-Encoding", "br")
        let a = ContentEncoding.negotiate(request: request(acceptEncoding: "gzip"), response: encoded)
        #expect(a.headers.values("Content-Encoding") == ["br"])
        #expect(a.bodyBytes == Self.bigText)

        var noTransform = response("text/plain")
        noTransform.headers.add("Cache-Control", "private, no-transform")
        #expect(ContentEncoding.negotiate(request: request(acceptEncoding: "gzip"), response: noTransform).headers["Content-Encoding"] == nil)

        var notModified = response("text/plain")
        notModified.status = .notModified
        #expect(ContentEncoding.negotiate(request: request(acceptEncoding: "gzip"), response: notModified).headers["Content-Encoding"] == nil)

        let stream = HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain"], body: .stream { _ in })
        #expect(ContentEncoding.negotiate(request: request(acceptEncoding: "gzip"), response: stream).headers["Content-Encoding"] == nil)
    }

    @Test func varyIsMergedNotDuplicated() {
        var r = response("text/plain", size: 10)
        r.headers.add("Vary", "Origin, accept-encoding")
        #expect(ContentEncoding.negotiate(request: request(acceptEncoding: "gzip"), response: r).headers.values("Vary") == ["Origin, accept-encoding"])
        var s = response("text/plain", size: 10)
        s.headers.add("Vary", "Origin")
        #expect(ContentEncoding.negotiate(request: request(acceptEncoding: "gzip"), response: s).headers.values("Vary") == ["Origin", "Accept-Encoding"])
    }

    @Test func staleContentLengthIsDropped() {
        var r = response("text/plain")
        r.headers.add("Content-Length", "\(Self.bigText.count)")
        let out = ContentEncoding.negotiate(request: request(acceptEncoding: "gzip"), response: r)
        #expect(out.headers["Content-Encoding"] == "gzip")
        #expect(out.headers["Content-Length"] == nil)
    }

    @Test func incompressibleBodiesAreLeftAlone() {
        var rng = SplitMix64(seed: 7)
        let noise = (0..<4000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let r = HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain"], body: .bytes(noise))
        let out = ContentEncoding.negotiate(request: request(acceptEncoding: "gzip"), response: r)
        #expect(out.headers["Content-Encoding"] == nil)
        #expect(out.bodyBytes == noise)
        #expect(out.headers.hasToken("Accept-Encoding", in: "Vary"))
    }

    @Test(arguments: [
        ("\"a\"", "\"a\"", true),
        ("W/\"a\"", "\"a\"", true),
        ("\"a\"", "W/\"a\"", true),
        ("\"b\", \"a\"", "\"a\"", true),
        ("\"b\",W/\"a\"", "\"a\"", true),
        ("\"x,y\", \"a\"", "\"a\"", true),
        ("\"x,y\"", "\"y\"", false),
        ("*", "\"a\"", true),
        ("\"b\"", "\"a\"", false),
        ("", "\"a\"", false),
        ("\"a", "\"a\"", false),
    ])
    func entityTagWeakComparison(ifNoneMatch: String, etag: String, matches: Bool) {
        #expect(EntityTag.matches(ifNoneMatch: ifNoneMatch, etag: etag) == matches)
    }
}
