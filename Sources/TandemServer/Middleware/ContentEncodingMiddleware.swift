import TandemHTTP

/// Gzip for the clients that take it (`ContentEncoding.negotiate`, event streams included:
/// their head passes here too) and `Cache-Control: no-store` on JSON answers to GET and HEAD,
/// which are the state of the moment. It works on the response on its way out, so first in
/// the chain it sees every answer, the other middleware's too: a replayed idempotent answer
/// (cached as the route made it) is negotiated against the resend's `Accept-Encoding`, and
/// the metrics do not count the compression as the route's time.
struct ContentEncodingMiddleware: RouteMiddleware {
    func wrap(_ next: @escaping RouteHandler, for route: Endpoint) -> RouteHandler {
        // HEAD runs GET routes, nothing else reaches a GET route: the method is known here.
        let noStore = route.method == .get || route.method == .head
        return { request, context, responder in
            let requestHeaders = request.headers
            next(request, context, HTTPResponder { response in
                responder.send(Self.negotiate(response, requestHeaders: requestHeaders, noStore: noStore))
            })
        }
    }

    /// `wrap`'s work on one response, for answers that no route gives (static files, 404,
    /// the router's 405): `noStore` says whether the request was a GET or a HEAD.
    static func negotiate(_ response: HTTPResponse, requestHeaders: HTTPHeaders, noStore: Bool) -> HTTPResponse {
        var r = ContentEncoding.negotiate(requestHeaders: requestHeaders, response: response)
        guard noStore else { return r }
        // The usual small JSON answer: one shared field list with Cache-Control, no copy.
        if r.headers.sharesStorage(with: HTTPResponse.jsonHeadersVaryingByEncoding) {
            r.headers = jsonNoStoreHeaders
            return r
        }
        if r.headers["Content-Type"].map({ HTTPHeaders.hasPrefixIgnoringCase($0, "application/json") }) == true,
           !r.headers.contains("Cache-Control") {
            r.headers.add("Cache-Control", "no-store")
        }
        return r
    }

    static func negotiate(_ response: HTTPResponse, to request: HTTPRequest) -> HTTPResponse {
        negotiate(response, requestHeaders: request.headers, noStore: request.method == .get || request.method == .head)
    }

    static let jsonNoStoreHeaders: HTTPHeaders = {
        var headers = HTTPResponse.jsonHeadersVaryingByEncoding
        headers.add("Cache-Control", "no-store")
        return headers
    }()
}
