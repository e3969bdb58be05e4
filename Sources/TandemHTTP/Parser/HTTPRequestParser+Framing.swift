// MARK: - Framing

extension HTTPRequestParser {
    /// What the field lines say about where the message ends and what it expects.
    struct Framing {
        var hostCount = 0
        var hostEmpty = false
        var contentLength: Int?
        var contentLengthSeen = false
        var transferEncodingSeen = false
        var codingCount = 0
        var chunkedCount = 0
        var otherCodings = 0
        var lastIsChunked = false
        var expectContinue = false
        var unknownExpectation = false
    }

    static func noteFraming(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, into f: inout Framing) throws(HTTPParseError) {
        switch name.count {
        case 4 where HTTPSyntax.equalsLowercase(name, "host"):
            f.hostCount += 1
            if value.isEmpty {
                f.hostEmpty = true
            } else if let problem = HTTPAuthority.problem(value, 0, value.count) {
                throw .bad("invalid_host", "the Host field " + problem.message)
            }
        case 6 where HTTPSyntax.equalsLowercase(name, "expect"):
            if HTTPSyntax.equalsLowercase(value, "100-continue") { f.expectContinue = true } else { f.unknownExpectation = true }
        case 14 where HTTPSyntax.equalsLowercase(name, "content-length"):
            f.contentLengthSeen = true
            try forEachListMember(value) { (m) throws(HTTPParseError) in
                guard m.count > 0 else { throw .bad("invalid_content_length", "Content-Length is not a decimal number") }
                var n = 0
                for c in m {
                    guard c >= 48 && c <= 57 else { throw .bad("invalid_content_length", "Content-Length is not a decimal number") }
                    // Bounded by value as it is read (leading zeros are harmless): below 10^18, far from Int.max.
                    guard n < 100_000_000_000_000_000 else { throw .bad("invalid_content_length", "Content-Length is too large a number") }
                    n = n * 10 + Int(c - 48)
                }
                if let old = f.contentLength, old != n {
                    throw .bad("content_length_conflict", "Content-Length values differ")
                }
                f.contentLength = n
            }
            if f.contentLength == nil { throw .bad("invalid_content_length", "Content-Length is empty") }
        case 17 where HTTPSyntax.equalsLowercase(name, "transfer-encoding"):
            f.transferEncodingSeen = true
            try forEachListMember(value) { (m) throws(HTTPParseError) in
                f.codingCount += 1
                if HTTPSyntax.equalsLowercase(m, "chunked") {
                    f.chunkedCount += 1
                    f.lastIsChunked = true
                } else {
                    f.otherCodings += 1
                    f.lastIsChunked = false
                }
            }
        default:
            break
        }
    }

    /// Calls `body` with each non-empty, OWS-trimmed member of a comma-separated list.
    private static func forEachListMember(
        _ value: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> Void
    ) throws(HTTPParseError) {
        var s = 0
        while s <= value.count {
            var e = s
            while e < value.count && value[e] != UInt8(ascii: ",") { e += 1 }
            var a = s, b = e
            while a < b && (value[a] == HTTPSyntax.sp || value[a] == HTTPSyntax.htab) { a += 1 }
            while b > a && (value[b - 1] == HTTPSyntax.sp || value[b - 1] == HTTPSyntax.htab) { b -= 1 }
            if b > a { try body(UnsafeBufferPointer(rebasing: value[a..<b])) }
            s = e + 1
        }
    }

    func checkFraming(_ f: Framing, version: HTTPVersion, absoluteForm: Bool) throws(HTTPParseError) {
        if version.minor >= 1 && f.hostCount == 0 { throw .bad("missing_host", "an HTTP/1.1 request needs a Host field") }
        if f.hostCount > 1 { throw .bad("multiple_host", "more than one Host field") }
        // An empty Host names no host, and an `http` URI must have one (RFC 9110 §4.2.1; RFC 9112 §3.3
        // lets the server reject it). With an absolute-form target the Host is ignored (§3.2.2).
        if f.hostEmpty && !absoluteForm { throw .bad("invalid_host", "the Host field is empty") }
        if f.transferEncodingSeen {
            if version.minor == 0 { throw .bad("transfer_encoding_http10", "Transfer-Encoding in an HTTP/1.0 request") }
            if f.contentLengthSeen { throw .bad("content_length_with_transfer_encoding", "both Content-Length and Transfer-Encoding") }
            if !f.lastIsChunked { throw .bad("transfer_encoding_not_chunked", "the last transfer coding is not chunked") }
            if f.chunkedCount > 1 { throw .bad("chunked_repeated", "chunked is applied more than once") }
            if f.otherCodings > 0 {
                throw HTTPParseError(.notImplemented, "unsupported_transfer_coding", "only the chunked transfer coding is supported")
            }
        }
        if let n = f.contentLength, n > limits.maxBodyBytes {
            throw HTTPParseError(.payloadTooLarge, "body_too_large", "the body is larger than \(limits.maxBodyBytes) bytes")
        }
        if f.unknownExpectation && version.minor >= 1 {
            throw HTTPParseError(.expectationFailed, "unsupported_expectation", "only `Expect: 100-continue` is supported")
        }
    }
}
