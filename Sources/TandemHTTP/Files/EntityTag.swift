/// Entity-tag comparison for conditional requests (RFC 9110 §8.8.3, §13.1.2).
public enum EntityTag {
    /// Whether an `If-None-Match` value matches `etag`, comparing weakly as §13.1.2
    /// requires: `W/"x"` and `"x"` match each other. Handles lists and `*`.
    public static func matches(ifNoneMatch: String, etag: String) -> Bool {
        let target = opaque(Substring(etag))
        var rest = Substring(ifNoneMatch)
        while true {
            while let c = rest.first, c == " " || c == "\t" || c == "," { rest.removeFirst() }
            guard !rest.isEmpty else { return false }
            if rest.first == "*" { return true }
            if rest.hasPrefix("W/") { rest = rest.dropFirst(2) }
            let tag: Substring
            if rest.first == "\"" {
                // Opaque tags may hold commas, so read to the closing quote, not the comma.
                let body = rest.dropFirst()
                guard let close = body.firstIndex(of: "\"") else { return false }
                tag = body[..<close]
                rest = body[body.index(after: close)...]
            } else {
                // Not a quoted tag (malformed); compare it as sent, up to the next comma.
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                tag = rest[..<end].trimmingSpaces
                rest = rest[end...]
            }
            if tag == target { return true }
        }
    }

    /// `If-Match` compares strongly (RFC 9110 §13.1.1): a weak tag `W/"7"` never matches,
    /// since a write must not rest on "semantically the same" text. `*` matches any
    /// existing document; a list matches if one of its tags does.
    public static func matches(ifMatch header: String, etag: String) -> Bool {
        var rest = Substring(header)
        while true {
            while let c = rest.first, c == " " || c == "\t" || c == "," { rest.removeFirst() }
            guard !rest.isEmpty else { return false }
            if rest.first == "*" { return true }
            var weak = false
            if rest.hasPrefix("W/") { weak = true; rest = rest.dropFirst(2) }
            guard rest.first == "\"" else { return false }
            let body = rest.dropFirst()
            guard let close = body.firstIndex(of: "\"") else { return false }
            let tag = rest[rest.startIndex...close]
            rest = body[body.index(after: close)...]
            if !weak && tag == etag { return true }
        }
    }

    /// The tag without `W/` and quotes.
    static func opaque(_ tag: Substring) -> Substring {
        var t = tag.trimmingSpaces
        if t.hasPrefix("W/") { t = t.dropFirst(2) }
        if t.count >= 2, t.first == "\"", t.last == "\"" { t = t.dropFirst().dropLast() }
        return t
    }
}
