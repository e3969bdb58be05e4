/// A request path checked and split into names that can only point inside the root.
enum StaticFilePath: Equatable {
    /// Decoded names, none empty, `.` or `..`, none holding `/`, `\`, NUL or control bytes.
    case names([String], trailingSlash: Bool)
    /// A name starts with `.` (`.git`, `.env`): treated as not there.
    case hidden
    /// Malformed or an attempt to leave the root: `..`, `%2e%2e`, `%2f`, `\`, NUL, bad `%`.
    case invalid(String)
    /// Not an origin-form path (`*`, `http://…`): not ours to answer.
    case notApplicable

    /// Splits on `/` BEFORE decoding, so `%2F` can never make a new path separator, then
    /// checks each decoded name. Empty names (`//`) are skipped.
    static func parse(_ rawPath: Substring) -> StaticFilePath {
        guard rawPath.first == "/" else { return .notApplicable }
        var names: [String] = []
        var hidden = false
        for raw in rawPath.split(separator: "/", omittingEmptySubsequences: true) {
            guard let name = PercentDecoding.decode(raw) else { return .invalid("malformed percent-encoding in path") }
            if name == "." || name == ".." { return .invalid("path may not contain '.' or '..' segments") }
            for b in name.utf8 {
                if b == UInt8(ascii: "/") || b == UInt8(ascii: "\\") {
                    return .invalid("path segments may not contain '/' or '\\'")
                }
                if b < 0x20 || b == 0x7F { return .invalid("path may not contain control characters") }
            }
            if name.hasPrefix(".") { hidden = true }
            names.append(name)
        }
        if hidden { return .hidden }
        return .names(names, trailingSlash: rawPath.last == "/")
    }
}
