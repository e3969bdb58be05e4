/// An incremental HTTP/1.1 request parser (RFC 9112) that accepts bytes in any split.
///
/// Feed bytes with `append`, then call `next()` until it returns nil. Every framing
/// ambiguity that could smuggle a request is an error (see `HTTPParseError`); after an
/// error the parser stays failed, since the stream position can no longer be trusted.
///
/// Decisions (RFC 9112 leaves them open):
/// - Bare LF as a line terminator is rejected (§2.2 allows accepting it; we don't, against smuggling).
/// - Repeated Content-Length fields or list members with one equal value are accepted (§6.3 ¶5).
/// - HTTP/1.x with a minor version above 1 is served as HTTP/1.1 (RFC 9110 §6.2); other majors get 505.
/// - Empty lines (CRLF) before a request line are skipped (§2.2).
/// - `Expect: 100-continue` is ignored in HTTP/1.0; any other expectation gets 417.
/// - A transfer coding other than chunked gets 501; chunked not last, or TE in HTTP/1.0, gets 400.
/// - Targets (§3.2): origin-form, absolute-form with an `http`/`https` URI, and `*` for OPTIONS;
///   anything else is 400, and CONNECT's authority-form 501 (no tunnels here).
/// - Host must be one valid `uri-host [ ":" port ]` (§3.2); empty only with an absolute-form
///   target, whose authority stands in for it (§3.2.2): an `http` URI needs a host (RFC 9110 §4.2.1).
public struct HTTPRequestParser {
    public enum Event {
        case request(HTTPRequest)
        /// The head of a request asking `Expect: 100-continue` is complete and its body is due.
        case continueExpected
    }

    enum State {
        case head
        case fixedBody(Int)
        case chunkSize
        case chunkData(Int)
        case trailers
        case failed(HTTPParseError)
    }

    public let limits: HTTPLimits
    public var remoteAddress: String

    private var buffer: [UInt8] = []
    private var start = 0
    private var scan = 0
    private var lineStart = 0
    private var state: State = .head
    private var current: HTTPRequest?
    private var bodyLength = 0
    private var trailerBytes = 0
    private var continuePending = false

    public init(limits: HTTPLimits = HTTPLimits(), remoteAddress: String = "") {
        self.limits = limits
        self.remoteAddress = remoteAddress
        buffer.reserveCapacity(1024)
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// No request is begun: nothing buffered and no body pending (the connection is idle).
    public var isIdle: Bool {
        if case .head = state { return start == buffer.count }
        return false
    }

    /// Reading a body (fixed or chunked) rather than a head.
    public var isReadingBody: Bool {
        switch state {
        case .fixedBody, .chunkSize, .chunkData, .trailers: true
        default: false
        }
    }

    public var bufferedByteCount: Int { buffer.count - start }

    private mutating func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            scan = 0; lineStart = 0; start = 0
        } else if start > 4096 && start > buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            scan -= start; lineStart -= start; start = 0
        }
    }

    /// The next complete request or interim event, nil when more bytes are needed.
    public mutating func next() throws(HTTPParseError) -> Event? {
        do {
            return try step()
        } catch {
            state = .failed(error)
            throw error
        }
    }

    private mutating func step() throws(HTTPParseError) -> Event? {
        while true {
            switch state {
            case .failed(let error):
                throw error
            case .head:
                guard let request = try parseHead() else { return nil }
                if case .head = state { return .request(request) }
                current = request
                if continuePending {
                    continuePending = false
                    return .continueExpected
                }
            case .fixedBody(let length):
                guard buffer.count - start >= length else { return nil }
                current!.body = Array(buffer[start..<start + length])
                start += length
                return finish()
            case .chunkSize:
                guard try parseChunkSize() else { return nil }
            case .chunkData(let size):
                guard buffer.count - start >= size + 2 else { return nil }
                guard buffer[start + size] == HTTPSyntax.cr, buffer[start + size + 1] == HTTPSyntax.lf else {
                    throw .bad("chunk_missing_crlf", "chunk data is not followed by CRLF")
                }
                current!.body.append(contentsOf: buffer[start..<start + size])
                start += size + 2
                scan = start
                state = .chunkSize
            case .trailers:
                guard try parseTrailerLine() else { return nil }
                if case .head = state { return finish() }
            }
        }
    }

    private mutating func finish() -> Event {
        state = .head
        scan = start; lineStart = start
        bodyLength = 0
        return .request(current.take()!)
    }

    // MARK: head

    private mutating func parseHead() throws(HTTPParseError) -> HTTPRequest? {
        // Empty lines before a request line are ignored (RFC 9112 §2.2).
        while scan == start, buffer.count - start >= 2, buffer[start] == HTTPSyntax.cr, buffer[start + 1] == HTTPSyntax.lf {
            start += 2; scan = start; lineStart = start
        }
        // A lone CR at the start may be the first half of a skippable CRLF: wait for the next byte.
        if scan == start, buffer.count - start == 1, buffer[start] == HTTPSyntax.cr { return nil }
        if lineStart < start { lineStart = start }
        if scan < start { scan = start }
        let end = buffer.count
        var headEnd = -1
        buffer.withUnsafeBufferPointer { p in
            var i = scan
            while i < end {
                if p[i] == HTTPSyntax.lf {
                    let length = i - lineStart
                    if lineStart > start && (length == 0 || (length == 1 && p[lineStart] == HTTPSyntax.cr)) {
                        headEnd = i + 1
                        return
                    }
                    lineStart = i + 1
                }
                i += 1
            }
        }
        if headEnd < 0 {
            scan = end
            // A request line still arriving is refused early only for what the whole line would
            // be refused for: its target (after the method's space) already past the limit.
            if lineStart == start && end - start - 32 > limits.maxTargetLength && partialTargetLength(end: end) > limits.maxTargetLength {
                throw HTTPParseError(.uriTooLong, "target_too_long", "the request target is longer than \(limits.maxTargetLength) bytes")
            }
            if end - start > limits.maxHeaderBytes {
                throw HTTPParseError(.headersTooLarge, "headers_too_large", "the header section is larger than \(limits.maxHeaderBytes) bytes")
            }
            return nil
        }
        let (request, framing) = try buffer.withUnsafeBufferPointer { (p) throws(HTTPParseError) -> (HTTPRequest, Framing) in
            try buildHead(p, from: start, to: headEnd)
        }
        start = headEnd
        scan = start; lineStart = start
        bodyLength = 0
        if framing.transferEncodingSeen {
            state = .chunkSize
        } else if let n = framing.contentLength, n > 0 {
            state = .fixedBody(n)
        } else {
            return request
        }
        continuePending = framing.expectContinue && request.version.minor >= 1
        return request
    }

    /// One line's content bounds, CRLF required.
    @inline(__always)
    private static func lineContentEnd(_ p: UnsafeBufferPointer<UInt8>, lf: Int, lineStart: Int) throws(HTTPParseError) -> Int {
        guard lf > lineStart, p[lf - 1] == HTTPSyntax.cr else {
            throw .bad("bare_lf", "lines must end with CRLF")
        }
        return lf - 1
    }

    @inline(__always)
    private static func nextLF(_ p: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Int {
        var i = from
        while i < to && p[i] != HTTPSyntax.lf { i += 1 }
        return i
    }

    private struct Framing {
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

    /// The bytes of the target received so far on an unfinished request line: from the
    /// method's space to the next space or the end of what has arrived (0 before the space).
    private func partialTargetLength(end: Int) -> Int {
        buffer.withUnsafeBufferPointer { p in
            var i = start
            while i < end && p[i] != HTTPSyntax.sp { i += 1 }
            guard i < end else { return 0 }
            let targetStart = i + 1
            i = targetStart
            while i < end && p[i] != HTTPSyntax.sp { i += 1 }
            return i - targetStart
        }
    }

    private func buildHead(_ p: UnsafeBufferPointer<UInt8>, from: Int, to headEnd: Int) throws(HTTPParseError) -> (HTTPRequest, Framing) {
        // Request line.
        let lf0 = Self.nextLF(p, from: from, to: headEnd)
        let lineEnd = try Self.lineContentEnd(p, lf: lf0, lineStart: from)
        var i = from
        while i < lineEnd && p[i] != HTTPSyntax.sp {
            if !HTTPSyntax.isTokenChar(p[i]) { throw Self.charError(p[i], "invalid_method", "the method is not a token") }
            i += 1
        }
        if i == from || i == lineEnd { throw .bad("invalid_request_line", "the request line is not `method SP target SP version`") }
        let methodEnd = i
        let targetStart = i + 1
        i = targetStart
        while i < lineEnd && p[i] != HTTPSyntax.sp { i += 1 }
        if i - targetStart > limits.maxTargetLength {
            throw HTTPParseError(.uriTooLong, "target_too_long", "the request target is longer than \(limits.maxTargetLength) bytes")
        }
        if i == targetStart || i == lineEnd { throw .bad("invalid_request_line", "the request line is not `method SP target SP version`") }
        for j in targetStart..<i where !HTTPSyntax.isTargetChar(p[j]) {
            throw Self.charError(p[j], "invalid_target", "the request target has a character outside visible ASCII")
        }
        let targetEnd = i
        let versionStart = i + 1
        if headEnd - from > limits.maxHeaderBytes {
            throw HTTPParseError(.headersTooLarge, "headers_too_large", "the header section is larger than \(limits.maxHeaderBytes) bytes")
        }
        let version = try Self.parseVersion(p, versionStart, lineEnd)
        let absolute = try Self.checkTargetForm(p, method: from, methodEnd, target: targetStart, targetEnd)

        // Field lines.
        var framing = Framing()
        var headers = HTTPHeaders()
        var ls = lf0 + 1
        while true {
            let lf = Self.nextLF(p, from: ls, to: headEnd)
            let ce = try Self.lineContentEnd(p, lf: lf, lineStart: ls)
            if ce == ls { break }
            let (nameEnd, valueStart, valueEnd) = try Self.parseFieldLine(p, ls, ce)
            let name = UnsafeBufferPointer(rebasing: p[ls..<nameEnd])
            let value = UnsafeBufferPointer(rebasing: p[valueStart..<valueEnd])
            try Self.noteFraming(name: name, value: value, into: &framing)
            headers.add(Self.string(p, ls, nameEnd), Self.string(p, valueStart, valueEnd))
            ls = lf + 1
        }
        try checkFraming(framing, version: version, absoluteForm: absolute)
        // Built last, once nothing can throw: a request made before the field lines was
        // copied twice on the way out.
        let request = HTTPRequest(
            method: HTTPMethod(Self.string(p, from, methodEnd)),
            target: Self.string(p, targetStart, targetEnd),
            version: version,
            headers: headers,
            remoteAddress: remoteAddress
        )
        return (request, framing)
    }

    @inline(__always)
    static func charError(_ c: UInt8, _ code: String, _ message: String) -> HTTPParseError {
        if c == HTTPSyntax.cr { return .bad("bare_cr", "a CR appears outside a line ending") }
        if c == HTTPSyntax.lf { return .bad("bare_lf", "a LF appears outside a line ending") }
        return .bad(code, message)
    }

    @inline(__always)
    static func string(_ p: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: p[from..<to]), as: UTF8.self)
    }

    /// RFC 9112 §3.2: true for absolute-form, false for origin-form and `*` (OPTIONS only);
    /// anything else throws. The method is matched case-sensitively (RFC 9110 §9.1).
    private static func checkTargetForm(
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

    private static func parseVersion(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) throws(HTTPParseError) -> HTTPVersion {
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

    /// Returns name end, value start and value end (OWS trimmed) of one field line.
    static func parseFieldLine(_ p: UnsafeBufferPointer<UInt8>, _ ls: Int, _ ce: Int) throws(HTTPParseError) -> (Int, Int, Int) {
        if p[ls] == HTTPSyntax.sp || p[ls] == HTTPSyntax.htab {
            throw .bad("obsolete_line_folding", "a field line starts with whitespace (obs-fold)")
        }
        var i = ls
        while i < ce && p[i] != HTTPSyntax.colon {
            let c = p[i]
            if !HTTPSyntax.isTokenChar(c) {
                if c == HTTPSyntax.sp || c == HTTPSyntax.htab {
                    throw .bad("whitespace_before_colon", "whitespace between a field name and its colon")
                }
                throw charError(c, "invalid_field_name", "a field name is not a token")
            }
            i += 1
        }
        if i == ce { throw .bad("missing_colon", "a field line has no colon") }
        if i == ls { throw .bad("invalid_field_name", "a field name is empty") }
        let nameEnd = i
        var vs = i + 1
        while vs < ce && (p[vs] == HTTPSyntax.sp || p[vs] == HTTPSyntax.htab) { vs += 1 }
        var ve = ce
        while ve > vs && (p[ve - 1] == HTTPSyntax.sp || p[ve - 1] == HTTPSyntax.htab) { ve -= 1 }
        for j in vs..<ve where !HTTPSyntax.isFieldValueChar(p[j]) {
            throw charError(p[j], "invalid_field_value", "a field value has a control character")
        }
        return (nameEnd, vs, ve)
    }

    private static func noteFraming(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, into f: inout Framing) throws(HTTPParseError) {
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

    private func checkFraming(_ f: Framing, version: HTTPVersion, absoluteForm: Bool) throws(HTTPParseError) {
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

    // MARK: chunked body

    private var tooLarge: HTTPParseError {
        HTTPParseError(.payloadTooLarge, "body_too_large", "the body is larger than \(limits.maxBodyBytes) bytes")
    }

    /// Parses `chunk-size [chunk-ext] CRLF`; false when the line is not complete yet.
    private mutating func parseChunkSize() throws(HTTPParseError) -> Bool {
        let end = buffer.count
        let limit = limits.maxBodyBytes
        let found: (Int, Int)? = try buffer.withUnsafeBufferPointer { (p) throws(HTTPParseError) -> (Int, Int)? in
            let lf = Self.nextLF(p, from: max(scan, start), to: end)
            if lf == end { return nil }
            let ce = try Self.lineContentEnd(p, lf: lf, lineStart: start)
            var i = start
            var size = 0
            while i < ce, let h = HTTPSyntax.hexValue(p[i]) {
                // The value is bounded, not the digit count: leading zeros are harmless.
                if size >= 1 << 59 { throw .bad("chunk_size_overflow", "the chunk size is too large") }
                size = size << 4 | h
                i += 1
            }
            if i == start {
                if i == ce { throw .bad("invalid_chunk_size", "the chunk size is empty") }
                throw Self.charError(p[i], "invalid_chunk_size", "the chunk size is not hexadecimal")
            }
            // chunk-ext: BWS ";" ... ; its contents are not interpreted, only checked for CTLs.
            while i < ce && (p[i] == HTTPSyntax.sp || p[i] == HTTPSyntax.htab) { i += 1 }
            if i < ce {
                guard p[i] == UInt8(ascii: ";") else { throw Self.charError(p[i], "invalid_chunk_size", "the chunk size is not hexadecimal") }
                for j in i..<ce where !HTTPSyntax.isFieldValueChar(p[j]) {
                    throw Self.charError(p[j], "invalid_chunk_extension", "a chunk extension has a control character")
                }
            }
            return (size, lf + 1)
        }
        guard let (size, next) = found else {
            if end - start > 4096 { throw .bad("chunk_line_too_long", "the chunk-size line is too long") }
            scan = end
            return false
        }
        if size > limit - bodyLength { throw tooLarge }
        bodyLength += size
        start = next
        scan = start
        if size == 0 {
            state = .trailers
            lineStart = start
            trailerBytes = 0
        } else {
            state = .chunkData(size)
        }
        return true
    }

    /// Parses one trailer field line or the empty line ending the message.
    private mutating func parseTrailerLine() throws(HTTPParseError) -> Bool {
        let end = buffer.count
        let found: (Int, Int, Int, Int)? = try buffer.withUnsafeBufferPointer { (p) throws(HTTPParseError) -> (Int, Int, Int, Int)? in
            let lf = Self.nextLF(p, from: max(scan, start), to: end)
            if lf == end { return nil }
            let ce = try Self.lineContentEnd(p, lf: lf, lineStart: start)
            if ce == start { return (lf + 1, 0, 0, 0) }
            let (ne, vs, ve) = try Self.parseFieldLine(p, start, ce)
            return (lf + 1, ne, vs, ve)
        }
        guard let (next, ne, vs, ve) = found else {
            if trailerBytes + end - start > limits.maxHeaderBytes {
                throw HTTPParseError(.headersTooLarge, "trailers_too_large", "the trailer section is larger than \(limits.maxHeaderBytes) bytes")
            }
            scan = end
            return false
        }
        trailerBytes += next - start
        if trailerBytes > limits.maxHeaderBytes {
            throw HTTPParseError(.headersTooLarge, "trailers_too_large", "the trailer section is larger than \(limits.maxHeaderBytes) bytes")
        }
        if ne == 0 {
            start = next
            state = .head
            return true
        }
        let name = String(decoding: buffer[start..<ne], as: UTF8.self)
        let value = String(decoding: buffer[vs..<ve], as: UTF8.self)
        current!.trailers.add(name, value)
        start = next
        scan = start
        return true
    }
}
