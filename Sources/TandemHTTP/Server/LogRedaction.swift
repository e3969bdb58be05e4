/// Request targets as the access log writes them: the values of query parameters that carry
/// credentials (a share link's `?link=`, tokens, keys) replaced by `REDACTED`, so a log
/// shipped elsewhere hands nobody a capability. Headers are never logged.
public enum LogRedaction {
    /// Parameter names compared case-insensitively, before percent-decoding (an encoded name
    /// is not one the server reads either).
    static let secretNames: Set<String> = [
        "link", "token", "access_token", "key", "admin_key", "adminkey", "secret", "password", "auth", "authorization",
    ]

    public static func target(_ target: String) -> String {
        // The usual target has no query: one byte scan, nothing allocated.
        guard let question = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return target }
        let query = target[target.index(after: question)...]
        var redacted = false
        let parts = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> Substring in
            guard let equals = pair.firstIndex(of: "="), secretNames.contains(pair[..<equals].lowercased()) else { return pair }
            redacted = true
            return pair[...equals] + "REDACTED"
        }
        guard redacted else { return target }
        return String(target[...question]) + parts.joined(separator: "&")
    }
}
