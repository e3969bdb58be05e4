// MARK: - Request line

extension HTTPRequestParser {
    /// RFC 9112 §3.2: true for absolute-form, false for origin-form and `*` (OPTIONS only);
    /// anything else throws. The method is matched case-sensitively (RFC 9110 §9.1).
    static func checkTargetForm(
        _ p: UnsafeBufferPointer<UInt8>, method ms: Int, _ me: Int, target ts: Int, _ te: Int
    ) throws(HTTPParseError) -> Bool {
        let first = p[ts]
        if first == UInt8(ascii: "/") { return false }
        if first == UInt8(ascii: "*") && te - ts == 1 {
            guard equals(p, ms, me, "OPTIONS") else { throw .bad("invalid_target", "the asterisk-form `*` is only for OPTIONS") }
            return false
        }
        if equals(p, ms, me, "CONNECT") {
            if let problem = HTTPAuthority.problem(p, ts, te) { throw .bad("invalid_target", "the CONNECT target " + problem.message) }
            throw HTTPParseError(.notImplemented, "connect_not_supported", "CONNECT is not served: this is no proxy")
        }
        // absolute-form; an origin server serves `http-URI` and `https-URI` (RFC 9110 §4.2):
        // scheme "://" authority path-abempty [ "?" query ].
        var a = ts
        for c in "http".utf8 {
            guard a < te, HTTPSyntax.lower(p[a]) == c else { throw notATarget }
            a += 1
        }
        if a < te && HTTPSyntax.lower(p[a]) == UInt8(ascii: "s") { a += 1 }
        guard te - a >= 3, p[a] == HTTPSyntax.colon, p[a + 1] == UInt8(ascii: "/"), p[a + 2] == UInt8(ascii: "/") else { throw notATarget }
        a += 3
        var ae = a
        while ae < te && p[ae] != UInt8(ascii: "/") && p[ae] != UInt8(ascii: "?") { ae += 1 }
        if let problem = HTTPAuthority.problem(p, a, ae) { throw .bad("invalid_target", "the request target's authority " + problem.message) }
        return true
    }

    private static var notATarget: HTTPParseError {
        .bad("invalid_target", "the request target is not `/path`, `http://host/path`, or `*` with OPTIONS")
    }

    @inline(__always)
    private static func equals(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, _ literal: StaticString) -> Bool {
        guard e - s == literal.utf8CodeUnitCount else { return false }
        let l = literal.utf8Start
        for i in 0..<(e - s) where p[s + i] != l[i] { return false }
        return true
    }

    static func parseVersion(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) throws(HTTPParseError) -> HTTPVersion {
        guard e - s == 8, p[s] == UInt8(ascii: "H"), p[s + 1] == UInt8(ascii: "T"), p[s + 2] == UInt8(ascii: "T"),
              p[s + 3] == UInt8(ascii: "P"), p[s + 4] == UInt8(ascii: "/"), p[s + 6] == UInt8(ascii: "."),
              (48...57).contains(p[s + 5]), (48...57).contains(p[s + 7])
        else {
            for j in s..<e where p[j] == HTTPSyntax.cr { throw charError(p[j], "", "") }
            throw .bad("invalid_version", "the protocol version is not `HTTP/d.d`")
        }
        let major = Int(p[s + 5] - 48), minor = Int(p[s + 7] - 48)
        guard major == 1 else {
            throw HTTPParseError(.versionNotSupported, "version_not_supported", "only HTTP/1.x is served")
        }
        return minor == 0 ? .http1_0 : .http1_1
    }
}
