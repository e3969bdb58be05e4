import TandemHTTP

/// The per-client rate limits on making things (docs/API.md, "Limits"): sessions,
/// documents, pasteboards and share links, counted per client address before the route runs,
/// and `429 rate_limited` with `Retry-After` past them. Other routes are not wrapped at all.
struct ClientLimitsMiddleware: RouteMiddleware {
    let limiter: RateLimiter
    let clients: ClientAddressResolver

    static let limitedRoutes: [String: RateLimits.Name] = [
        "createSession": .sessions, "signUp": .sessions, "createDocument": .documents, "createPasteboard": .pasteboards, "createLink": .links,
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
        let limit = "Rate limit '\(name.rawValue)' of this client address reached (rate_limited, Retry-After)"
        // One 429 per route: a route with a 429 of its own says both.
        if let i = e.responses.firstIndex(where: { $0.status == 429 }) {
            e.responses[i].description = limit + "; or " + e.responses[i].description.prefix(1).lowercased() + e.responses[i].description.dropFirst()
        } else {
            e.responses.append(Endpoint.error(429, limit))
        }
        return e
    }
}
