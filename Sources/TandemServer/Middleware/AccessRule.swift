import TandemHTTP

/// What a route needs of the caller in the document its path names.
enum AccessRule: Sendable {
    /// The route names no document (sessions, pasteboards, the service).
    case none
    case document(Permission)
    /// Depends on the request: the scope it asks for, the fields a PATCH changes.
    case decided(@Sendable (_ request: HTTPRequest, _ hasSession: Bool) -> Permission)
}
