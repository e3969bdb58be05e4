import TandemHTTP

/// Verifies the credentials a request presents (docs/API.md, "Access"): the bearer token, a
/// share link (`Tandem-Link`, or `?link=` for a URL opened in a browser) and the operator key
/// (`Tandem-Admin-Key`). A wrong, expired or revoked one is 401 on every route, before
/// anything else (a cached idempotent answer included) can be reached with it. What they
/// name goes down the chain as the context's `caller`.
struct AuthenticationMiddleware: RouteMiddleware {
    let session: @Sendable (HTTPRequest) throws(APIError) -> Session?
    let link: @Sendable (String) throws(APIError) -> Caller.PresentedLink
    let operatorKey: OperatorKey?

    func wrap(_ next: @escaping RouteHandler, for route: Endpoint) -> RouteHandler {
        { [session, link, operatorKey] request, context, responder in
            var context = context
            do throws(APIError) {
                context.caller.session = try session(request)
                if let token = request.headers["Tandem-Link"] ?? request.queryValue("link") {
                    context.caller.link = try link(token)
                }
                if let key = request.headers["Tandem-Admin-Key"] {
                    guard let operatorKey, operatorKey.matches(key) else { throw .invalidAdminKey }
                    context.caller.isOperator = true
                }
            } catch {
                return responder.send(error.response)
            }
            next(request, context, responder)
        }
    }
}

/// The operator key, kept only as its hash and compared in constant time.
struct OperatorKey: Sendable {
    private let hash: [UInt8]

    init(_ key: String) { hash = Secrets.sha256(Array(key.utf8)) }

    func matches(_ presented: String) -> Bool {
        Secrets.constantTimeEqual(hash, Secrets.sha256(Array(presented.utf8)))
    }
}

extension APIError {
    static let invalidLink = APIError(.unauthorized, "invalid_link", "the share link is unknown, revoked or expired")
    static let invalidAdminKey = APIError(.unauthorized, "invalid_admin_key", "the operator key is wrong, or the server has none")
}
