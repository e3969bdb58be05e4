/// What the nodes sharing a database know about one `Idempotency-Key`: the fingerprint of the
/// request that claimed it, and either the node still answering it or the answer it gave.
public struct IdempotencyRecord: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        /// `node` claimed the key at `started` and has not stored its answer yet.
        case pending(node: String, started: Double)
        case done(StoredAnswer)
    }

    public var fingerprint: [UInt8]
    public var state: State

    public init(fingerprint: [UInt8], state: State) {
        self.fingerprint = fingerprint
        self.state = state
    }
}

/// An answer as stored for replay: the status code, the response's header fields in the
/// server's own encoding (opaque here), its body and when it was stored.
public struct StoredAnswer: Sendable, Equatable {
    public var status: Int
    public var headers: [UInt8]
    public var body: [UInt8]
    public var answered: Double

    public init(status: Int, headers: [UInt8], body: [UInt8], answered: Double) {
        self.status = status
        self.headers = headers
        self.body = body
        self.answered = answered
    }
}

/// The outcome of claiming a key.
public enum IdempotencyClaim: Sendable, Equatable {
    /// The key was free (never seen, or expired): the caller now holds it and must store its
    /// answer, or forget the key, with the same node and `started`.
    case claimed
    /// Someone holds the key (possibly for another request: compare the fingerprint).
    case existing(IdempotencyRecord)
}
