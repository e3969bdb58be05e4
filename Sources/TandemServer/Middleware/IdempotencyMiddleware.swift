import TandemHTTP

/// `Idempotency-Key` on every mutating route: a resend with the same key and the same
/// request gets the first answer (or waits for it) instead of acting twice. Keys are scoped
/// to the verified session or, anonymously, to the document the path names. A new session's
/// answer holds its token: it is never kept or replayed.
struct IdempotencyMiddleware: RouteMiddleware {
    /// Where the answers live: this process, or the database the nodes share.
    let store: any IdempotencyStore

    func wrap(_ next: @escaping RouteHandler, for route: Endpoint) -> RouteHandler {
        let replayable = route.method != .get && !(route.method == .post && route.path == "/sessions")
        guard replayable else { return next }
        return { [store] request, context, responder in
            guard let key = request.headers["Idempotency-Key"] else { return next(request, context, responder) }
            guard let scoped = Self.scope(request, key: key, session: context.session) else {
                return responder.send(APIError.badRequest("Idempotency-Key must be 1 to \(IdempotencyCache.maxKeyLength) bytes",
                                                          code: "invalid_idempotency_key").response)
            }
            store.perform(scoped, fingerprint: IdempotencyCache.fingerprint(of: request), responder: responder) { answering in
                next(request, context, answering)
            }
        }
    }

    /// The key within its scope: the verified session's, else the document's the path names,
    /// else all anonymous callers'. Nil for a key of the wrong length.
    static func scope(_ request: HTTPRequest, key: String, session: Session?) -> String? {
        guard (1...IdempotencyCache.maxKeyLength).contains(key.utf8.count) else { return nil }
        let scope: String
        if let session {
            scope = "session " + session.id
        } else if let id = request.parameters["id"] {
            scope = "document " + id
        } else {
            scope = "anonymous"
        }
        return scope + "\u{0}" + key
    }
}
