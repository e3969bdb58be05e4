/// Writes response heads straight into a connection's output buffer.
enum ResponseSerializer {
    static let crlf: [UInt8] = [13, 10]

    static func appendHex(_ value: Int, to out: inout [UInt8]) {
        let hex: StaticString = "0123456789abcdef"
        var shift = 60
        while shift > 0 && (value >> shift) & 15 == 0 { shift -= 4 }
        while shift >= 0 {
            out.append(hex.utf8Start[(value >> shift) & 15])
            shift -= 4
        }
    }

    /// A field the connection owns, or one that would split the response: dropped. Judged
    /// on the bytes being copied, which is much cheaper than through `String`.
    @inline(__always)
    static func isWritable(name n: UnsafeBufferPointer<UInt8>, value v: UnsafeBufferPointer<UInt8>) -> Bool {
        switch n.count {
        case 0: return false
        case 4: if owned(n, "date") { return false }
        case 6: if owned(n, "server") { return false }
        case 10: if owned(n, "connection") { return false }
        case 14: if owned(n, "content-length") { return false }
        case 17: if owned(n, "transfer-encoding") { return false }
        default: break
        }
        for c in n where c == 13 || c == 10 || c == 58 { return false }
        for c in v where c == 13 || c == 10 || c == 0 { return false }
        return true
    }

    @inline(__always)
    private static func owned(_ name: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        HTTPHeaders.asciiCaseInsensitiveEqual(name, UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount))
    }

    /// One header line, unless `isWritable` says no. The field is read where it lies (no
    /// copy, so no retain and release of its two strings).
    @inline(__always)
    static func putField(_ field: UnsafePointer<HTTPHeaders.Field>, to c: inout ByteCursor) {
        func line(_ n: UnsafeBufferPointer<UInt8>, _ v: UnsafeBufferPointer<UInt8>) {
            guard isWritable(name: n, value: v) else { return }
            c.put(n)
            c.put(": ")
            c.put(v)
            c.put("\r\n")
        }
        let written: ()?? = field.pointee.name.utf8.withContiguousStorageIfAvailable { n in
            field.pointee.value.utf8.withContiguousStorageIfAvailable { v in line(n, v) }
        }
        if case .some(.some) = written { return }
        // Strings without contiguous UTF-8 (bridged ones; none on Linux) go through copies.
        Array(field.pointee.name.utf8).withUnsafeBufferPointer { n in
            Array(field.pointee.value.utf8).withUnsafeBufferPointer { v in line(n, v) }
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
        // Sized first, then written through one cursor: separate appends each check capacity
        // and uniqueness (see docs/performance.md).
        // The fixed text, at most 120 bytes with 20-digit numbers, plus what varies.
        var bound = 128 + status.reason.utf8.count + date.count
        for field in headers.fields { bound += field.name.utf8.count + field.value.utf8.count + 4 }
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: bound))
        let written = out.withUnsafeMutableBufferPointer { buffer in
            var c = ByteCursor(UnsafeMutableBufferPointer(rebasing: buffer[start...]))
            c.put("HTTP/1.1 ")
            c.putDecimal(status.code)
            c.put(UInt8(ascii: " "))
            c.put(status.reason)
            c.put("\r\nServer: Tandem\r\nDate: ")
            date.withUnsafeBufferPointer { c.put($0) }
            c.put("\r\n")
            headers.fields.withUnsafeBufferPointer { fields in
                for i in fields.indices { putField(fields.baseAddress! + i, to: &c) }
            }
            switch framing {
            case .length(let n):
                c.put("Content-Length: ")
                c.putDecimal(n)
                c.put("\r\n")
            case .chunked:
                c.put("Transfer-Encoding: chunked\r\n")
            case .none:
                break
            }
            if let connection {
                c.put("Connection: ")
                c.put(connection)
                c.put("\r\n")
            }
            c.put("\r\n")
            return c.count
        }
        out.removeLast(bound - written)
    }
}
