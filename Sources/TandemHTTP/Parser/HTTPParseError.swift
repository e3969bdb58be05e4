/// Why a request could not be read. The connection answers `response` and then closes,
/// because after a framing error nothing that follows on the stream can be trusted.
public struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: HTTPStatus
    /// Machine-readable reason, e.g. `content_length_conflict`.
    public var code: String
    public var message: String

    public init(_ status: HTTPStatus, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public var description: String { "\(status.code) \(code): \(message)" }

    /// The contract's JSON error body for this failure.
    public var response: HTTPResponse { .error(status, code: code, message: message) }

    static func bad(_ code: String, _ message: String) -> HTTPParseError {
        HTTPParseError(.badRequest, code, message)
    }
}
