import Foundation

/// Sign-in names: what a person types is compared after Unicode NFC and lower-casing, so
/// "Ada" and "ada" are one account; 1 to 64 characters of letters, digits and `.`, `_`, `-`,
/// `@` (an e-mail address fits), so a name never hides a space or a control character.
public enum UserName {
    public static func normalized(_ name: String) -> String? {
        let folded = name.precomposedStringWithCanonicalMapping.lowercased()
        guard (1...64).contains(folded.count),
              folded.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || ".-_@".unicodeScalars.contains($0) })
        else { return nil }
        return folded
    }

    public static let rule = "1 to 64 letters, digits and . _ - @"

    /// Passwords: 8 to 1,024 bytes (NIST SP 800-63B: at least 8, and long passphrases allowed).
    public static func acceptablePassword(_ password: String) -> Bool {
        password.count >= 8 && password.utf8.count <= 1024
    }

    public static let passwordRule = "at least 8 characters and at most 1,024 bytes"
}
