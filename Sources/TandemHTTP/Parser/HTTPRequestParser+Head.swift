// MARK: - Head

extension HTTPRequestParser {
    mutating func parseHead() throws(HTTPParseError) -> HTTPRequest? {
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
    static func lineContentEnd(_ p: UnsafeBufferPointer<UInt8>, lf: Int, lineStart: Int) throws(HTTPParseError) -> Int {
        guard lf > lineStart, p[lf - 1] == HTTPSyntax.cr else {
            throw .bad("bare_lf", "lines must end with CRLF")
        }
        return lf - 1
    }

    @inline(__always)
    static func nextLF(_ p: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Int {
        var i = from
        while i < to && p[i] != HTTPSyntax.lf { i += 1 }
        return i
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
}
