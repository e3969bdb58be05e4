/// `uri-host [ ":" port ]` (RFC 3986 §3.2.2–3.2.3), the form of a Host field value
/// (RFC 9110 §7.2) and of the authority in an absolute-form or authority-form target.
///
/// One pass over the bytes, no allocation: it runs on every request's Host field.
enum HTTPAuthority {
    /// Why a value is not `uri-host [ ":" port ]`; the message goes into the 400 answer.
    enum Problem: Equatable {
        case emptyHost, userinfo, list, delimiter, whitespace, character, percentEncoding, ipLiteral, port

        var message: String {
            switch self {
            case .emptyHost: "has an empty host"
            case .userinfo: "has userinfo (`user@`), which is not allowed"
            case .list: "is a comma-separated list, not one host"
            case .delimiter: "has a path, query or fragment (`/`, `?` or `#`)"
            case .whitespace: "has whitespace inside"
            case .character: "has a character not allowed in a host name"
            case .percentEncoding: "has a `%` not followed by two hex digits"
            case .ipLiteral: "has a malformed IP literal (IPv6 goes in brackets: `[::1]`)"
            case .port: "has a port that is not a number from 0 to 65535"
            }
        }
    }

    /// nil when `p[s..<e]` is `uri-host [ ":" port ]` with a non-empty host. The port may
    /// be empty (`port = *DIGIT`) and may have leading zeros; its value must fit 0...65535.
    static func problem(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Problem? {
        var i = s
        if i < e && p[i] == UInt8(ascii: "[") {
            var close = i + 1
            while close < e && p[close] != UInt8(ascii: "]") { close += 1 }
            if close == e || !isIPLiteral(p, i + 1, close) { return failure(p, s, e, .ipLiteral) }
            i = close + 1
        } else {
            // reg-name (an IPv4 address is one too): unreserved / pct-encoded / sub-delims but ",".
            while i < e {
                let c = p[i]
                if isRegNameChar(c) {
                    i += 1
                } else if c == UInt8(ascii: "%") {
                    guard e - i >= 3, HTTPSyntax.hexValue(p[i + 1]) != nil, HTTPSyntax.hexValue(p[i + 2]) != nil else {
                        return failure(p, s, e, .percentEncoding)
                    }
                    i += 3
                } else if c == HTTPSyntax.colon {
                    break
                } else {
                    return failure(p, s, e, classify(c))
                }
            }
            if i == s {
                // ":80", or an IPv6 address without its brackets.
                return failure(p, s, e, e - s > 1 && p[s + 1] == HTTPSyntax.colon ? .ipLiteral : .emptyHost)
            }
        }
        if i == e { return nil }
        guard p[i] == HTTPSyntax.colon else { return failure(p, s, e, classify(p[i])) }
        i += 1
        // Bounded as it is read: a long run of digits stops at the first one past 65535.
        var port = 0
        while i < e {
            let c = p[i]
            guard c >= 48 && c <= 57 else { return failure(p, s, e, c == HTTPSyntax.colon ? .port : classify(c, otherwise: .port)) }
            port = port * 10 + Int(c - 48)
            if port > 65535 { return failure(p, s, e, .port) }
            i += 1
        }
        return nil
    }

    /// An `@` anywhere means userinfo, whatever tripped first (`user:pass@host` fails in the "port").
    private static func failure(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, _ problem: Problem) -> Problem {
        for j in s..<e where p[j] == UInt8(ascii: "@") { return .userinfo }
        return problem
    }

    private static func classify(_ c: UInt8, otherwise: Problem = .character) -> Problem {
        switch c {
        case UInt8(ascii: "@"): .userinfo
        case UInt8(ascii: ","): .list
        case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"): .delimiter
        case HTTPSyntax.sp, HTTPSyntax.htab: .whitespace
        default: otherwise
        }
    }

    /// unreserved (ALPHA DIGIT `-._~`) and sub-delims (`!$&'()*+;=`), `,` left out: a Host
    /// with a comma is two fields joined, the ambiguity RFC 9112 §3.2 answers with 400.
    @inline(__always)
    static func isRegNameChar(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
             UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ";"), UInt8(ascii: "="):
            true
        default:
            false
        }
    }

    /// `IPv6address / IPvFuture` between the brackets (no zone identifier: RFC 9110 has none).
    static func isIPLiteral(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Bool {
        if s < e && (p[s] == UInt8(ascii: "v") || p[s] == UInt8(ascii: "V")) { return isIPvFuture(p, s, e) }
        return isIPv6(p, s, e)
    }

    /// RFC 3986 `IPv6address`: eight 16-bit groups of 1–4 hex digits, or fewer around one
    /// `::`, the last two optionally an IPv4 address.
    static func isIPv6(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Bool {
        var i = s
        var groups = 0
        var compressed = false
        if e - s >= 2 && p[s] == HTTPSyntax.colon && p[s + 1] == HTTPSyntax.colon {
            compressed = true
            i = s + 2
            if i == e { return true }
        }
        while i < e {
            let g = i
            while i < e && i - g < 4 && HTTPSyntax.hexValue(p[i]) != nil { i += 1 }
            if i < e && p[i] == UInt8(ascii: ".") {
                guard isIPv4(p, g, e) else { return false }
                groups += 2
                break
            }
            if i == g { return false }
            groups += 1
            if i == e { break }
            guard p[i] == HTTPSyntax.colon else { return false }
            i += 1
            if i == e { return false }
            if p[i] == HTTPSyntax.colon {
                if compressed { return false }
                compressed = true
                i += 1
            }
        }
        return compressed ? groups <= 7 : groups == 8
    }

    /// RFC 3986 `IPv4address`: four `dec-octet`s 0–255 without leading zeros.
    static func isIPv4(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Bool {
        var i = s
        for octet in 0..<4 {
            if octet > 0 {
                guard i < e, p[i] == UInt8(ascii: ".") else { return false }
                i += 1
            }
            let d = i
            var value = 0
            while i < e && i - d < 3 && p[i] >= 48 && p[i] <= 57 {
                value = value * 10 + Int(p[i] - 48)
                i += 1
            }
            if i == d || value > 255 || (i - d > 1 && p[d] == 48) { return false }
        }
        return i == e
    }

    /// `"v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )`.
    static func isIPvFuture(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Bool {
        var i = s + 1
        let h = i
        while i < e && HTTPSyntax.hexValue(p[i]) != nil { i += 1 }
        guard i > h, i < e, p[i] == UInt8(ascii: ".") else { return false }
        i += 1
        guard i < e else { return false }
        while i < e {
            guard isRegNameChar(p[i]) || p[i] == HTTPSyntax.colon || p[i] == UInt8(ascii: ",") else { return false }
            i += 1
        }
        return true
    }
}
