import COpenSSL

/// A TLS set-up failure, with OpenSSL's own words for what went wrong.
public struct TLSError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    /// `what`, followed by every queued OpenSSL error (which it also clears).
    static func openSSL(_ what: String) -> TLSError {
        let details = drainErrorQueue()
        return TLSError(details.isEmpty ? what : "\(what): \(details)")
    }

    /// Empties this thread's OpenSSL error queue into one line; stale entries left
    /// there would be blamed on the next, unrelated call.
    static func drainErrorQueue() -> String {
        var parts: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            parts.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return parts.joined(separator: "; ")
    }
}
