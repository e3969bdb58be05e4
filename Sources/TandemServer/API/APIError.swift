/// An error answer of the contract: a status, a stable machine code and a human message.
/// It names no HTTP type, so that the services that throw it know nothing of HTTP; the edge
/// encodes it (`APIError.response`).
public struct APIError: Error, Sendable, Equatable {
    public var status: APIStatus
    public var code: String
    public var message: String
    /// Headers the answer carries (`Retry-After`, `WWW-Authenticate`).
    public var headers: [String: String] = [:]

    public init(_ status: APIStatus, _ code: String, _ message: String, headers: [String: String] = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public static func badRequest(_ message: String, code: String = "bad_request") -> APIError {
        APIError(.badRequest, code, message)
    }
    public static func invalidJSON(_ message: String) -> APIError {
        APIError(.badRequest, "invalid_json", message)
    }
    public static func invalidField(_ field: String, _ message: String) -> APIError {
        APIError(.badRequest, "invalid_field", "\(field): \(message)")
    }
    public static func notFound(_ what: String) -> APIError {
        APIError(.notFound, "not_found", "\(what) does not exist")
    }
    public static let unauthorized = APIError(
        .unauthorized, "unauthorized", "the bearer token is unknown or expired",
        headers: ["WWW-Authenticate": #"Bearer realm="tandem""#]
    )
    public static func sessionRequired(_ what: String) -> APIError {
        APIError(.unauthorized, "session_required", "\(what) needs a session: send Authorization: Bearer <token>",
                 headers: ["WWW-Authenticate": #"Bearer realm="tandem""#])
    }
    public static func unsupportedMediaType(_ expected: String) -> APIError {
        APIError(.unsupportedMediaType, "unsupported_media_type", "the body must be \(expected)")
    }
    public static func unprocessable(_ message: String, code: String = "invalid_operation") -> APIError {
        APIError(.unprocessableContent, code, message)
    }
    public static func conflict(_ code: String, _ message: String) -> APIError {
        APIError(.conflict, code, message)
    }
    /// The document's owner changed while the request waited: sent again, it reaches the new one.
    public static let documentMoved = APIError(
        .serviceUnavailable, "document_moved", "the document moved to another node; send the request again",
        headers: ["Retry-After": "1"])

    public static let storageFailing = APIError(
        .serviceUnavailable, "storage_failing",
        "the store cannot save changes right now; reads still work, and changes will be accepted again when it recovers",
        headers: ["Retry-After": "5"]
    )
}
