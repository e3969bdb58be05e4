/// Reads a request's `Accept-Encoding` (RFC 9110 §12.5.3) for one question: may the
/// response be gzipped?
enum AcceptEncoding {
    /// True when `gzip` (or its alias `x-gzip`) is listed with q > 0, or, not listed,
    /// `*` is listed with q > 0. No header, an empty one, or `identity` alone: false,
    /// since a client that says nothing may not understand gzip (curl without --compressed).
    static func acceptsGzip(_ headers: HTTPHeaders) -> Bool {
        var gzipQuality: Bool?
        var anyQuality: Bool?
        for value in headers.values("Accept-Encoding") {
            for element in value.split(separator: ",") {
                let parts = element.split(separator: ";")
                guard let first = parts.first else { continue }
                let coding = first.trimmingSpaces
                let isGzip = HTTPHeaders.namesEqual(coding, "gzip") || HTTPHeaders.namesEqual(coding, "x-gzip")
                let isAny = coding == "*"
                guard isGzip || isAny else { continue }
                var acceptable = true
                for parameter in parts.dropFirst() {
                    let pair = parameter.split(separator: "=", maxSplits: 1)
                    guard pair.count == 2, HTTPHeaders.namesEqual(pair[0].trimmingSpaces, "q") else { continue }
                    acceptable = qualityIsPositive(pair[1].trimmingSpaces)
                }
                if isGzip { gzipQuality = (gzipQuality ?? false) || acceptable }
                else { anyQuality = (anyQuality ?? false) || acceptable }
            }
        }
        return gzipQuality ?? anyQuality ?? false
    }

    /// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`: positive unless all
    /// digits are zero. A malformed value counts as refusal, the safe reading.
    static func qualityIsPositive(_ q: Substring) -> Bool {
        var sawDigit = false
        var positive = false
        var sawDot = false
        for c in q.utf8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                sawDigit = true
                if c != UInt8(ascii: "0") { positive = true }
            case UInt8(ascii: "."):
                if sawDot || !sawDigit { return false }
                sawDot = true
            default:
                return false
            }
        }
        return sawDigit && positive
    }
}
