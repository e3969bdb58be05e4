import TandemHTTP

/// Verifies the bearer token: a wrong or expired one is 401 on every route, before anything
/// else (a cached idempotent answer included) can be reached with it. The session it names
/// goes down the chain in the context.
struct AuthenticationMiddleware: RouteMiddleware {
    let verify: @Sendable (HTTPRequest) throws(APIError) -> Session?

    func wrap(_ next: @escaping RouteHandler, for route: Endpoint) -> RouteHandler {
        { [verify] request, context, responder in
            var context = context
            do throws(APIError) {
                context.caller = try verify(request)
            } catch {
                return responder.send(error.response)
            }
            next(request, context, responder)
        }
    }
}
