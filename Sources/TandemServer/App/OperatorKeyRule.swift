/// What `--admin-key` must be: a guessable key would hand every document to whoever guesses
/// it, so one without entropy is refused at start (docs/API.md, "Limits").
public enum OperatorKeyRule {
    public static let minimumBytes = 16
    public static let minimumDistinctCharacters = 8

    /// Why `key` is refused, or nil when it will do.
    public static func problem(with key: String) -> String? {
        if key.utf8.count < minimumBytes { return "the operator key must be at least \(minimumBytes) bytes" }
        let visible = key.unicodeScalars.filter { !$0.properties.isWhitespace }
        if visible.isEmpty { return "the operator key must not be only whitespace" }
        // All one character, "abababab…" or a keyboard row repeated: too few distinct characters.
        if Set(visible).count < minimumDistinctCharacters {
            return "the operator key must have at least \(minimumDistinctCharacters) distinct non-whitespace characters"
        }
        return nil
    }
}
