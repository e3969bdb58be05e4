/// Maps method and path to handlers. Build it, then hand `handler` to the server.
///
/// HEAD runs the GET handler (the connection drops the body), OPTIONS is answered with
/// `Allow` (for `*`, every method the server serves), a path known under other methods gets
/// 405 with `Allow`, an unknown one the fallback (static files) or 404.
public struct Router: Sendable {
    struct Route: Sendable {
        var method: HTTPMethod
        var pattern: RoutePattern
        var handler: HTTPHandler
    }

    private var routes: [Route] = []
    /// Route indices by method, in registration order (the first match wins): a request
    /// tries only its own method's routes, and of those only the ones whose segment count
    /// fits, instead of matching every pattern of the API. A list, not a dictionary: there are a handful of methods, whose names are small strings
    /// compared as bits, which costs less than hashing one per request.
    private var byMethod: [(method: HTTPMethod, routes: [Int])] = []
    /// The literal first segments of all routes, or nil once a route starts with a parameter
    /// or wildcard: a path starting with none of them (a static file) skips matching at all.
    private var firstSegments: [String]? = []
    /// Called for paths no route matches (any method); 404 when nil.
    public var fallback: HTTPHandler?
    /// Applied to the answers the router makes itself (OPTIONS, 405, the 404 without a
    /// fallback) before they are sent: no route's middleware sees them.
    public var finishing: (@Sendable (HTTPRequest, HTTPResponse) -> HTTPResponse)?

    public init() {}

    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping HTTPHandler) {
        let compiled = RoutePattern(pattern)
        if case .literal(let first)? = compiled.segments.first {
            if firstSegments?.contains(first) == false { firstSegments?.append(first) }
        } else {
            firstSegments = nil
        }
        if let i = byMethod.firstIndex(where: { $0.method == method }) {
            byMethod[i].routes.append(routes.count)
        } else {
            byMethod.append((method, [routes.count]))
        }
        routes.append(Route(method: method, pattern: compiled, handler: handler))
    }

    public mutating func get(_ pattern: String, _ f: @escaping @Sendable (HTTPRequest) -> HTTPResponse) { add(.get, pattern, Self.sync(f)) }
    public mutating func post(_ pattern: String, _ f: @escaping @Sendable (HTTPRequest) -> HTTPResponse) { add(.post, pattern, Self.sync(f)) }
    public mutating func put(_ pattern: String, _ f: @escaping @Sendable (HTTPRequest) -> HTTPResponse) { add(.put, pattern, Self.sync(f)) }
    public mutating func patch(_ pattern: String, _ f: @escaping @Sendable (HTTPRequest) -> HTTPResponse) { add(.patch, pattern, Self.sync(f)) }
    public mutating func delete(_ pattern: String, _ f: @escaping @Sendable (HTTPRequest) -> HTTPResponse) { add(.delete, pattern, Self.sync(f)) }

    private static func sync(_ f: @escaping @Sendable (HTTPRequest) -> HTTPResponse) -> HTTPHandler {
        { request, responder in responder.send(f(request)) }
    }

    /// The router as the server's handler (a snapshot: later `add`s are not seen).
    public var handler: HTTPHandler {
        let router = self
        return { request, responder in router.route(request, responder) }
    }

    private func routes(of method: HTTPMethod) -> [Int] {
        byMethod.first { $0.method == method }?.routes ?? []
    }

    /// The route indices a request of `method` tries, in registration order.
    private func candidates(for method: HTTPMethod) -> [Int] {
        // HEAD is served by GET routes, and by HEAD routes registered as such, in order.
        if method == .head { return (routes(of: .get) + routes(of: .head)).sorted() }
        return routes(of: method)
    }

    public func route(_ request: __owned HTTPRequest, _ responder: HTTPResponder) {
        // `OPTIONS *` asks about the server as a whole (RFC 9110 §9.3.7): every method it serves.
        if request.method == .options && request.target == "*" {
            return answer(request, responder, HTTPResponse(status: .noContent, headers: ["Allow": serverMethods]))
        }
        let path = request.path
        guard let segments = RoutePattern.split(path) else {
            return notFound(request, responder)
        }
        // Asked once per path, not per segment and per candidate pattern (see
        // docs/performance.md).
        let escaped = RoutePattern.hasEscapes(path)
        if let firstSegments, let first = segments.first, !escaped,
           !firstSegments.contains(where: { HTTPHeaders.bytesEqual(first, $0) }) {
            return notFound(request, responder)
        }
        var request = request
        for index in candidates(for: request.method) where routes[index].pattern.admits(segmentCount: segments.count) {
            if let parameters = routes[index].pattern.match(segments, escaped: escaped) {
                request.parameters = parameters
                request.route = routes[index].pattern.text
                return routes[index].handler(request, responder)
            }
        }
        // The path may exist under other methods: 405 (or the OPTIONS answer) with Allow.
        var allowed: [String] = []
        for route in routes where !allowed.contains(route.method.rawValue)
            && route.pattern.admits(segmentCount: segments.count) && route.pattern.match(segments, escaped: escaped) != nil {
            allowed.append(route.method.rawValue)
        }
        if allowed.isEmpty { return notFound(request, responder) }
        if allowed.contains("GET") && !allowed.contains("HEAD") { allowed.append("HEAD") }
        allowed.append("OPTIONS")
        let allow = allowed.joined(separator: ", ")
        if request.method == .options {
            answer(request, responder, HTTPResponse(status: .noContent, headers: ["Allow": allow]))
        } else {
            answer(request, responder, .error(.methodNotAllowed, code: "method_not_allowed",
                                              message: "\(request.method.rawValue) is not allowed here", headers: ["Allow": allow]))
        }
    }

    /// The methods of all routes in registration order, HEAD with GET (as for one path's
    /// `Allow`), and OPTIONS.
    var serverMethods: String {
        var methods: [String] = []
        for route in routes where !methods.contains(route.method.rawValue) { methods.append(route.method.rawValue) }
        if methods.contains("GET") && !methods.contains("HEAD") { methods.append("HEAD") }
        if !methods.contains("OPTIONS") { methods.append("OPTIONS") }
        return methods.joined(separator: ", ")
    }

    private func notFound(_ request: HTTPRequest, _ responder: HTTPResponder) {
        if let fallback { return fallback(request, responder) }
        answer(request, responder, .error(.notFound, code: "not_found", message: "no resource at this path"))
    }

    private func answer(_ request: HTTPRequest, _ responder: HTTPResponder, _ response: HTTPResponse) {
        responder.send(finishing.map { $0(request, response) } ?? response)
    }
}
