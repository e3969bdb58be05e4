/// The status of an answer, by its HTTP code and name, without TandemHTTP: the services
/// choose one, the edge sends it.
public struct APIStatus: Sendable, Equatable, Hashable {
    public let code: Int

    public init(_ code: Int) { self.code = code }

    public static let badRequest = APIStatus(400)
    public static let unauthorized = APIStatus(401)
    public static let forbidden = APIStatus(403)
    public static let notFound = APIStatus(404)
    public static let conflict = APIStatus(409)
    public static let gone = APIStatus(410)
    public static let preconditionFailed = APIStatus(412)
    public static let payloadTooLarge = APIStatus(413)
    public static let unsupportedMediaType = APIStatus(415)
    public static let unprocessableContent = APIStatus(422)
    public static let tooManyRequests = APIStatus(429)
    public static let internalServerError = APIStatus(500)
    public static let serviceUnavailable = APIStatus(503)
    /// WebDAV's Insufficient Storage: a per-document store of open state is full.
    public static let insufficientStorage = APIStatus(507)
}
