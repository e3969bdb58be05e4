import TandemHTTP

/// The per-client rate limits on making things (docs/API.md, "Limits"): sessions,
/// documents, pasteboards and share links, counted per client address before the route runs,
/// and `429 rate_limited` with `Retry-After` past them. Other routes are not wrapped at all.
struct ClientLimitsMiddleware: RouteMiddleware {
    let limiter: RateLimiter
    let clients: ClientAddressResolver

    static let limitedRoutes: [String: RateLimits.Name] = [
        "createSession": .sessions, "createDocument": .documents, "createPasteboard": .pasteboards, "createLink": .links,
    ]

    func wrap(_ next: @escaping RouteHandler, for route: Endpoint) -> RouteHandler {
        guard let name = Self.limitedRoutes[route.operationID] else { return next }
        return { [limiter, clients] request, context, responder in
            if let client = clients.client(of: request), let wait = limiter.take(name, for: client) {
                return responder.send(limiter.refusal(name, retryAfter: wait).response)
            }
            next(request, context, responder)
        }
    }

    /// The route with the `429` its limit may answer, for `/openapi.json`.
    static func documentingLimit(_ endpoint: Endpoint) -> Endpoint {
        guard let name = limitedRoutes[endpoint.operationID] else { return endpoint }
        var e = endpoint
        e.responses.append(Endpoint.error(429, "Rate limit '\(name.rawValue)' of this client address reached (rate_limited, Retry-After)"))
        return e
    }
}
