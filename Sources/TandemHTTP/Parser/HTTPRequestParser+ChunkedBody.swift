// MARK: - Chunked body

extension HTTPRequestParser {
    private var tooLarge: HTTPParseError {
        HTTPParseError(.payloadTooLarge, "body_too_large", "the body is larger than \(limits.maxBodyBytes) bytes")
    }

    /// Parses `chunk-size [chunk-ext] CRLF`; false when the line is not complete yet.
    mutating func parseChunkSize() throws(HTTPParseError) -> Bool {
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
    mutating func parseTrailerLine() throws(HTTPParseError) -> Bool {
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
