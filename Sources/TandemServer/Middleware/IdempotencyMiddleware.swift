import TandemHTTP

/// `Idempotency-Key` on every mutating route: a resend with the same key and the same
/// request gets the first answer (or waits for it) instead of acting twice. Keys are scoped
/// to the verified session or, anonymously, to the document the path names. A new session's
/// answer holds its token: it is never kept or replayed. An anonymous caller proves nothing
/// with a key (another may send the same one), so a replay that would carry a secret (a
/// link token, such as a new document's `ownerLink`) is `409 idempotent_answer_withheld` for it.
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
            let answer = context.session == nil ? Self.withholdingSecrets(from: responder) : responder
            store.start(scoped, fingerprint: IdempotencyCache.fingerprint(of: request), responder: answer,
                        executor: request.executor) { answering in
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

    /// `responder`, but a replayed answer holding a token goes out as a 409 instead: the
    /// first answer (to whoever sent the request) passes unchanged.
    static func withholdingSecrets(from responder: HTTPResponder) -> HTTPResponder {
        HTTPResponder { response in
            guard response.headers["Idempotent-Replayed"] == "true", carriesSecret(response) else { return responder.send(response) }
            responder.send(APIError.idempotentAnswerWithheld.response)
        }
    }

    /// Whether the answer shows a token: as a JSON key, `"token":` cannot occur inside a
    /// string (its quotes would be escaped), so the bytes tell without parsing.
    static func carriesSecret(_ response: HTTPResponse) -> Bool {
        guard let body = response.bodyBytes else { return false }
        let needle = Array(#""token":"#.utf8)
        guard body.count >= needle.count else { return false }
        for start in 0...(body.count - needle.count) where body[start] == needle[0] {
            if body[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }
}
