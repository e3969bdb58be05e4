import Glibc

/// Hand parsing of the server's answers, straight from the received bytes: at thousands of
/// answers a second, anything heavier would make the generator the thing being measured.
enum HTTPAnswer {
    struct Head {
        var status: Int
        /// Bytes up to and including the blank line.
        var length: Int
        var contentLength: Int?
        var chunked: Bool
        var gzip = false
    }

    enum HeadResult {
        case incomplete
        case malformed
        case head(Head)
    }

    static func head(_ p: UnsafePointer<UInt8>, _ n: Int) -> HeadResult {
        guard let end = Bytes.find(Bytes.crlfcrlf, in: p, n, from: 0) else {
            return n > 64 * 1024 ? .malformed : .incomplete
        }
        let length = end + 4
        // "HTTP/1.1 200 OK"
        guard length >= 12, p[0] == UInt8(ascii: "H"), p[8] == UInt8(ascii: " "),
              let status = Bytes.digits(p + 9, 3) else { return .malformed }
        var result = Head(status: status, length: length, contentLength: nil, chunked: false)
        var line = (Bytes.find(Bytes.crlf, in: p, end, from: 0) ?? end) + 2
        while line < end {
            let lineEnd = Bytes.find(Bytes.crlf, in: p, end, from: line) ?? end
            if Bytes.hasPrefixIgnoringCase(p + line, lineEnd - line, Bytes.contentLength) {
                var i = line + Bytes.contentLength.count
                result.contentLength = Bytes.integer(p, lineEnd, &i)
                guard let n = result.contentLength, n >= 0 else { return .malformed }
            } else if Bytes.hasPrefixIgnoringCase(p + line, lineEnd - line, Bytes.transferEncoding) {
                result.chunked = Bytes.find(Bytes.chunked, in: p + line, lineEnd - line, from: 0) != nil
            } else if Bytes.hasPrefixIgnoringCase(p + line, lineEnd - line, Bytes.contentEncoding) {
                result.gzip = Bytes.find(Bytes.gzip, in: p + line, lineEnd - line, from: 0) != nil
            }
            line = lineEnd + 2
        }
        return .head(result)
    }

    /// `{"revision":N,"ops":[...],...}`: the revision, and the document's length there, which
    /// is what the operation retains plus what it inserts (UTF-16 units, as positions count).
    static func edit(_ p: UnsafePointer<UInt8>, _ n: Int) -> (revision: Int, length: Int)? {
        guard let r = Bytes.find(Bytes.revisionKey, in: p, n, from: 0) else { return nil }
        var i = r + Bytes.revisionKey.count
        guard let revision = Bytes.integer(p, n, &i),
              let o = Bytes.find(Bytes.opsKey, in: p, n, from: 0) else { return nil }
        i = o + Bytes.opsKey.count
        Bytes.skipSpaces(p, n, &i)
        guard i < n, p[i] == UInt8(ascii: "[") else { return nil }
        i += 1
        var length = 0
        while true {
            Bytes.skipSpaces(p, n, &i)
            guard i < n else { return nil }
            switch p[i] {
            case UInt8(ascii: "]"):
                return (revision, length)
            case UInt8(ascii: ","):
                i += 1
            case UInt8(ascii: "\""):
                i += 1
                guard let units = utf16Length(p, n, &i) else { return nil }
                length += units
            default:
                guard let v = Bytes.integer(p, n, &i) else { return nil }
                if v > 0 { length += v }
            }
        }
    }

    /// The UTF-16 length of a JSON string's value; `i` starts after the opening quote and
    /// ends after the closing one.
    static func utf16Length(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int) -> Int? {
        var units = 0
        while i < n {
            let b = p[i]
            switch b {
            case UInt8(ascii: "\""):
                i += 1
                return units
            case UInt8(ascii: "\\"):
                // \uXXXX is one unit (a pair outside the BMP is written as two of them).
                guard i + 1 < n else { return nil }
                i += p[i + 1] == UInt8(ascii: "u") ? 6 : 2
                units += 1
            case 0xF0...:
                units += 2
                i += 1
            case 0x80..<0xC0:
                i += 1
            default:
                units += 1
                i += 1
            }
        }
        return nil
    }
}

/// Byte-level helpers shared by the answer and event-stream parsers.
enum Bytes {
    static let crlf: [UInt8] = Array("\r\n".utf8)
    static let crlfcrlf: [UInt8] = Array("\r\n\r\n".utf8)
    static let contentLength: [UInt8] = Array("content-length:".utf8)
    static let transferEncoding: [UInt8] = Array("transfer-encoding:".utf8)
    static let chunked: [UInt8] = Array("chunked".utf8)
    static let contentEncoding: [UInt8] = Array("content-encoding:".utf8)
    static let gzip: [UInt8] = Array("gzip".utf8)
    static let revisionKey: [UInt8] = Array("\"revision\":".utf8)
    static let opsKey: [UInt8] = Array("\"ops\":".utf8)

    /// The first offset at or after `from` where `needle` starts, within `p[0..<n]`.
    static func find(_ needle: [UInt8], in p: UnsafePointer<UInt8>, _ n: Int, from: Int) -> Int? {
        let m = needle.count
        guard m > 0, n - from >= m else { return nil }
        return needle.withUnsafeBufferPointer { nd -> Int? in
            let first = nd[0]
            var i = from
            let last = n - m
            while i <= last {
                guard let hit = memchr(p + i, Int32(first), last - i + 1) else { return nil }
                let at = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - p
                if memcmp(p + at, nd.baseAddress!, m) == 0 { return at }
                i = at + 1
            }
            return nil
        }
    }

    /// `needle` is lower case.
    static func hasPrefixIgnoringCase(_ p: UnsafePointer<UInt8>, _ n: Int, _ needle: [UInt8]) -> Bool {
        guard n >= needle.count else { return false }
        for k in 0..<needle.count {
            let b = p[k]
            let lower = b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b | 0x20 : b
            if lower != needle[k] { return false }
        }
        return true
    }

    static func digits(_ p: UnsafePointer<UInt8>, _ count: Int) -> Int? {
        var v = 0
        for k in 0..<count {
            let d = Int(p[k]) - 48
            guard d >= 0 && d <= 9 else { return nil }
            v = v * 10 + d
        }
        return v
    }

    static func skipSpaces(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int) {
        while i < n && (p[i] == 0x20 || p[i] == 0x09 || p[i] == 0x0D || p[i] == 0x0A) { i += 1 }
    }

    /// An optionally negative decimal after optional spaces; `i` ends after its last digit.
    static func integer(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int) -> Int? {
        skipSpaces(p, n, &i)
        var negative = false
        if i < n && p[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        let first = i
        var v = 0
        while i < n, p[i] >= 48, p[i] <= 57, i - first < 18 {
            v = v * 10 + Int(p[i] - 48)
            i += 1
        }
        guard i > first else { return nil }
        return negative ? -v : v
    }
}
