import TandemHTTP

/// Verifies the credentials a request presents (docs/API.md, "Access"): the bearer token, a
/// share link (`Tandem-Link`, or `?link=` for a URL opened in a browser) and the operator key
/// (`Tandem-Admin-Key`). A wrong, expired or revoked one is 401 on every route, before
/// anything else (a cached idempotent answer included) can be reached with it. What they
/// name goes down the chain as the context's `caller`. Each refused credential counts
/// against the client's `auth` rate limit; past it, a request presenting any credential is
/// `429 rate_limited` before it is checked, so guessing stays slow.
struct AuthenticationMiddleware: RouteMiddleware {
    let session: @Sendable (HTTPRequest) throws(APIError) -> Session?
    let link: @Sendable (String) throws(APIError) -> Caller.PresentedLink
    let operatorKey: OperatorKey?
    /// The key the nodes on one database present to each other (`PostgresLeases.clusterKey`).
    var peerKey: OperatorKey?
    let limiter: RateLimiter
    let clients: ClientAddressResolver
    /// `--auth-header`: a trusted proxy's word on who is signed in, checked against the session.
    var proxy: ProxyIdentity?

    func wrap(_ next: @escaping RouteHandler, for route: Endpoint) -> RouteHandler {
        { [session, link, operatorKey, peerKey, limiter, clients, proxy] request, context, responder in
            var context = context
            if limiter.mayRefuseCredentials, Self.presentsCredentials(request), let client = clients.client(of: request),
               let wait = limiter.refusesCredentials(from: client) {
                return responder.send(limiter.refusal(.auth, retryAfter: wait).response)
            }
            do throws(APIError) {
                context.caller.session = try session(request)
                if let token = request.headers["Tandem-Link"] ?? request.queryValue("link") {
                    context.caller.link = try link(token)
                }
                if let key = request.headers["Tandem-Admin-Key"] {
                    guard let operatorKey, operatorKey.matches(key) else { throw .invalidAdminKey }
                    context.caller.isOperator = true
                }
                if let key = request.headers[Self.peerKeyField] {
                    guard let peerKey, peerKey.matches(key) else { throw .invalidAdminKey }
                    context.caller.isOperator = true
                    context.caller.isPeer = true
                }
            } catch {
                if error.status == .unauthorized, let client = clients.client(of: request) { _ = limiter.take(.auth, for: client) }
                return responder.send(error.response)
            }
            do throws(APIError) {
                if let proxy, let named = try proxy.user(of: request), let s = context.caller.session, s.userName != named {
                    throw ProxyIdentity.mismatch
                }
            } catch {
                return responder.send(error.response)
            }
            next(request, context, responder)
        }
    }

    static func presentsCredentials(_ request: HTTPRequest) -> Bool {
        request.headers["Authorization"] != nil || request.headers["Tandem-Link"] != nil
            || request.headers["Tandem-Admin-Key"] != nil || request.headers[peerKeyField] != nil
            || request.query?.contains("link=") == true
    }

    static let peerKeyField = "Tandem-Peer-Key"
}

/// The operator key, kept only as its hash and compared in constant time.
struct OperatorKey: Sendable {
    private let hash: [UInt8]

    init(_ key: String) { hash = Secrets.sha256(Array(key.utf8)) }

    func matches(_ presented: String) -> Bool {
        Secrets.constantTimeEqual(hash, Secrets.sha256(Array(presented.utf8)))
    }
}
