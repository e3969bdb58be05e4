/// Character classes of RFC 9110 §5.6 as byte tests.
enum HTTPSyntax {
    static let cr: UInt8 = 13
    static let lf: UInt8 = 10
    static let sp: UInt8 = 32
    static let htab: UInt8 = 9
    static let colon: UInt8 = 58

    /// tchar: `!#$%&'*+-.^_`|~`, digits and letters.
    @inline(__always)
    static func isTokenChar(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// field-vchar, SP or HTAB: everything but CTLs (HTAB allowed) and DEL; obs-text passes.
    @inline(__always)
    static func isFieldValueChar(_ c: UInt8) -> Bool {
        c == htab || (c >= 0x20 && c != 0x7F)
    }

    /// Request-target characters: visible ASCII only (no SP, CTL, DEL or non-ASCII).
    @inline(__always)
    static func isTargetChar(_ c: UInt8) -> Bool {
        c > 0x20 && c < 0x7F
    }

    @inline(__always)
    static func hexValue(_ c: UInt8) -> Int? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(c &- UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(c &- UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(c &- UInt8(ascii: "A")) + 10
        default: nil
        }
    }

    @inline(__always)
    static func lower(_ c: UInt8) -> UInt8 {
        (c >= 65 && c <= 90) ? c | 0x20 : c
    }

    /// ASCII case-insensitive equality of bytes against a lowercase literal.
    static func equalsLowercase(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let l = lowercase.utf8Start
        for i in 0..<bytes.count where lower(bytes[i]) != l[i] { return false }
        return true
    }
}
