/// Writes response heads straight into a connection's output buffer.
enum ResponseSerializer {
    static let crlf: [UInt8] = [13, 10]

    @inline(__always)
    static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value < 10 { out.append(UInt8(48 + value)); return }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = value, count = 0
        withUnsafeMutableBytes(of: &digits) { d in
            while n > 0 { d[19 - count] = UInt8(48 + n % 10); n /= 10; count += 1 }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: d[(20 - count)...]))
        }
    }

    static func appendHex(_ value: Int, to out: inout [UInt8]) {
        let hex: StaticString = "0123456789abcdef"
        var shift = 60
        while shift > 0 && (value >> shift) & 15 == 0 { shift -= 4 }
        while shift >= 0 {
            out.append(hex.utf8Start[(value >> shift) & 15])
            shift -= 4
        }
    }

    /// A field the connection owns, or one that would split the response: dropped.
    @inline(__always)
    static func isWritable(_ field: HTTPHeaders.Field) -> Bool {
        let n = field.name.utf8
        switch n.count {
        case 0: return false
        case 4: if HTTPHeaders.namesEqual(field.name, "date") { return false }
        case 6: if HTTPHeaders.namesEqual(field.name, "server") { return false }
        case 10: if HTTPHeaders.namesEqual(field.name, "connection") { return false }
        case 14: if HTTPHeaders.namesEqual(field.name, "content-length") { return false }
        case 17: if HTTPHeaders.namesEqual(field.name, "transfer-encoding") { return false }
        default: break
        }
        return allBytes(of: field.name, avoid: (13, 10, 58)) && allBytes(of: field.value, avoid: (13, 10, 0))
    }

    /// Whether `s` has none of three bytes, scanned over its contiguous UTF-8 (every header
    /// of every response passes here).
    @inline(__always)
    static func allBytes(of s: String, avoid: (UInt8, UInt8, UInt8)) -> Bool {
        let scan = { (p: UnsafeBufferPointer<UInt8>) -> Bool in
            for c in p where c == avoid.0 || c == avoid.1 || c == avoid.2 { return false }
            return true
        }
        return s.utf8.withContiguousStorageIfAvailable(scan) ?? Array(s.utf8).withUnsafeBufferPointer(scan)
    }

    /// Appends a string's bytes in one copy (native strings are contiguous UTF-8).
    @inline(__always)
    static func append(_ s: String, to out: inout [UInt8]) {
        if s.utf8.withContiguousStorageIfAvailable({ out.append(contentsOf: $0) }) == nil {
            out.append(contentsOf: s.utf8)
        }
    }

    enum Framing {
        case length(Int)
        case chunked
        case none
    }

    static func appendHead(
        status: HTTPStatus, headers: HTTPHeaders, framing: Framing, connection: StaticString?,
        date: [UInt8], to out: inout [UInt8]
    ) {
        out.append(contentsOf: "HTTP/1.1 ".utf8)
        appendDecimal(status.code, to: &out)
        out.append(32)
        append(status.reason, to: &out)
        out.append(contentsOf: "\r\nServer: Tandem\r\nDate: ".utf8)
        out.append(contentsOf: date)
        out.append(contentsOf: crlf)
        for field in headers.fields where isWritable(field) {
            append(field.name, to: &out)
            out.append(58); out.append(32)
            append(field.value, to: &out)
            out.append(13); out.append(10)
        }
        switch framing {
        case .length(let n):
            out.append(contentsOf: "Content-Length: ".utf8)
            appendDecimal(n, to: &out)
            out.append(contentsOf: crlf)
        case .chunked:
            out.append(contentsOf: "Transfer-Encoding: chunked\r\n".utf8)
        case .none:
            break
        }
        if let connection {
            out.append(contentsOf: "Connection: ".utf8)
            out.append(contentsOf: UnsafeRawBufferPointer(start: connection.utf8Start, count: connection.utf8CodeUnitCount))
            out.append(contentsOf: crlf)
        }
        out.append(contentsOf: crlf)
    }
}
