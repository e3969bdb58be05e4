import TandemHTTP

/// Where the answers to `Idempotency-Key` requests live: `IdempotencyCache` in this process
/// (one node, SQLite), `PostgresIdempotency` in the database every node shares.
///
/// What both promise, for a key already scoped by the middleware:
/// - the first request with the key runs (`work`) once; its answer is recorded before it is
///   sent, then replayed to every resend of the same request with `Idempotent-Replayed: true`;
/// - a resend while the first is in flight waits for that answer;
/// - the key with a different request (fingerprint) is `422 idempotency_key_reused`;
/// - answers that changed nothing (4xx other than 409, 5xx) are not kept, so the client can
///   fix the request and reuse the key; kept answers expire after their TTL.
protocol IdempotencyStore: Sendable {
    /// Answers `responder` for the request `fingerprint` under `key`: runs `work` with a
    /// responder that records the answer and passes it on, or replays, waits or refuses.
    func perform(_ key: String, fingerprint: [UInt8], responder: HTTPResponder,
                 work: @escaping @Sendable (HTTPResponder) -> Void)

    /// `perform` for a request on an event loop, which must not wait for a database: a store
    /// that asks one claims elsewhere, and `work` runs on `executor` (the request's loop).
    func start(_ key: String, fingerprint: [UInt8], responder: HTTPResponder, executor: RequestExecutor,
               work: @escaping @Sendable (HTTPResponder) -> Void)

    /// Drops what is older than the TTL; housekeeping calls it about once a minute.
    func expire()
}

extension IdempotencyStore {
    /// In memory, claiming waits for nothing: on the caller's thread.
    func start(_ key: String, fingerprint: [UInt8], responder: HTTPResponder, executor: RequestExecutor,
               work: @escaping @Sendable (HTTPResponder) -> Void) {
        perform(key, fingerprint: fingerprint, responder: responder, work: work)
    }
}

/// The `IdempotencyStore` answers both implementations give.
enum Idempotency {
    static let reused = APIError(.unprocessableContent, "idempotency_key_reused",
                                 "this Idempotency-Key was already used with a different request; use a new key")

    /// Another node holds the key and has not answered: still working (past the wait), or it
    /// stopped before answering, so whether the request took effect is unknown.
    static let inFlight = APIError(
        .conflict, "idempotency_key_in_flight",
        "the first request with this Idempotency-Key is still being answered by another server, or that server stopped "
            + "before answering; retry later, or check what was applied and use a new key",
        headers: ["Retry-After": "1"])

    /// Answers larger than this are not kept whole: a replay gets `notKept` instead.
    static let maxKeptAnswerBytes = 256 * 1024

    static let notKept = APIError(
        .conflict, "idempotency_answer_not_kept",
        "the first request with this Idempotency-Key was applied, but its answer was larger than \(maxKeptAnswerBytes) bytes "
            + "and was not kept: read the resource to see the result")

    /// What an answer costs to keep: its body and about what its headers take.
    static func keptBytes(_ response: HTTPResponse) -> Int {
        if case .bytes(let body) = response.body { return body.count + 256 }
        return 256
    }

    /// Whether an answer is kept for replay: not one to a request refused (it changed nothing,
    /// and the client should be able to fix it and resend under the same key).
    static func keeps(_ response: HTTPResponse) -> Bool {
        response.status.code < 400 || response.status.code == 409
    }

    /// An answer sent again: marked so that the client can tell.
    static func replayed(_ response: HTTPResponse) -> HTTPResponse {
        var r = response
        r.headers.set("Idempotent-Replayed", "true")
        return r
    }
}
