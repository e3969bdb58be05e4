/// Maps method and path to handlers. Build it, then hand `handler` to the server.
///
/// HEAD runs the GET handler (the connection drops the body), OPTIONS is answered with
/// `Allow`, a path known under other methods gets 405 with `Allow`, an unknown one the
/// fallback (static files) or 404.
public struct Router: Sendable {
    struct Route: Sendable {
        var method: HTTPMethod
        var pattern: RoutePattern
        var handler: HTTPHandler
    }

    private var routes: [Route] = []
    /// Called for paths no route matches (any method); 404 when nil.
    public var fallback: HTTPHandler?

    public init() {}

    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping HTTPHandler) {
        routes.append(Route(method: method, pattern: RoutePattern(pattern), handler: handler))
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

    public func route(_ request: HTTPRequest, _ responder: HTTPResponder) {
        guard let segments = RoutePattern.split(request.path) else {
            return notFound(request, responder)
        }
        let method = request.method == .head ? HTTPMethod.get : request.method
        var request = request
        for route in routes where route.method == method || (request.method == .head && route.method == .head) {
            if let parameters = route.pattern.match(segments) {
                request.parameters = parameters
                request.route = route.pattern.text
                return route.handler(request, responder)
            }
        }
        // The path may exist under other methods: 405 (or the OPTIONS answer) with Allow.
        var allowed: [String] = []
        for route in routes where !allowed.contains(route.method.rawValue) && route.pattern.match(segments) != nil {
            allowed.append(route.method.rawValue)
        }
        if allowed.isEmpty { return notFound(request, responder) }
        if allowed.contains("GET") && !allowed.contains("HEAD") { allowed.append("HEAD") }
        allowed.append("OPTIONS")
        let allow = allowed.joined(separator: ", ")
        if request.method == .options {
            responder.send(HTTPResponse(status: .noContent, headers: ["Allow": allow]))
        } else {
            responder.send(.error(.methodNotAllowed, code: "method_not_allowed",
                                  message: "\(request.method.rawValue) is not allowed here", headers: ["Allow": allow]))
        }
    }

    private func notFound(_ request: HTTPRequest, _ responder: HTTPResponder) {
        if let fallback { return fallback(request, responder) }
        responder.send(.error(.notFound, code: "not_found", message: "no resource at this path"))
    }
}
