import TandemHTTP

/// What the middleware in front of a route learned about a request, handed down the chain
/// to the route's handler (Hummingbird's request context, instead of globals).
struct RequestContext: Sendable {
    /// The credentials the request presented, verified (`AuthenticationMiddleware`).
    var caller = Caller.anonymous
    /// The document the path names, once `AccessMiddleware` found the caller may do what the
    /// route does there; nil on routes that name no document.
    var document: DocumentHandle?
    /// The caller's role in `document`.
    var role: Role?

    /// The session the bearer token names; nil for an anonymous request.
    var session: Session? { caller.session }

    func requireSession(for what: String) throws(APIError) -> Session {
        guard let s = session else { throw .sessionRequired(what) }
        return s
    }

    /// The document the route acts on (checked by `AccessMiddleware`).
    func requestedDocument() throws(APIError) -> DocumentHandle {
        guard let document else { throw .notFound("document") }
        return document
    }
}

/// A route's handler as the middleware chain calls it.
typealias RouteHandler = @Sendable (HTTPRequest, RequestContext, HTTPResponder) -> Void

/// One concern every route shares (metrics, authentication, idempotency, where the work
/// runs), around the route's own handler. `wrap` runs once per route when the router is
/// built, so a request pays only for what each middleware does, not for the chain itself.
protocol RouteMiddleware: Sendable {
    func wrap(_ next: @escaping RouteHandler, for route: Endpoint) -> RouteHandler
}

extension Array where Element == any RouteMiddleware {
    /// The chain around `handler`: the first middleware is the outermost, so it sees the
    /// request first and the response last.
    func wrap(_ handler: @escaping RouteHandler, for route: Endpoint) -> RouteHandler {
        reversed().reduce(handler) { next, middleware in middleware.wrap(next, for: route) }
    }
}
