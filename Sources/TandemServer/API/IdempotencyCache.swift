import Foundation
import Synchronization
import TandemHTTP

/// Remembers the answer to each `Idempotency-Key` in this process (the `IdempotencyStore` of
/// a single node), so a client that lost a response can resend and get the first answer
/// again without the change happening twice. A resend that arrives while the first is still
/// in flight waits for the same answer.
///
/// Each entry remembers a fingerprint of the request that claimed it (method, path with
/// query, content type and body): the same key sent with a different request is answered
/// `422 idempotency_key_reused` rather than with an answer to a question it did not ask.
public final class IdempotencyCache: Sendable {
    enum Entry {
        case pending(waiters: [HTTPResponder], started: Double, fingerprint: [UInt8])
        case done(HTTPResponse, at: Double, fingerprint: [UInt8])

        var fingerprint: [UInt8] {
            switch self {
            case .pending(_, _, let f), .done(_, _, let f): f
            }
        }
    }

    public enum Claim {
        /// First time this key is seen: do the work, then call `complete`.
        case proceed
        /// Already answered, or now waiting for the first answer, or refused because the key
        /// came with a different request: nothing more to do.
        case handled
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let order = Mutex<[String]>([])
    /// Bytes of the kept answers (`Idempotency.keptBytes`), at most `budgetBytes`.
    private let kept = Mutex(0)
    private let capacity: Int
    private let budgetBytes: Int
    private let ttl: Double
    private let clock: @Sendable () -> Double

    /// At most `capacity` answers and `budgetBytes` of them, the oldest forgotten first.
    public init(capacity: Int = 50_000, budgetBytes: Int = 64 << 20, ttl: Double = 24 * 3600,
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.capacity = capacity
        self.budgetBytes = budgetBytes
        self.ttl = ttl
        self.clock = clock
    }

    public static let maxKeyLength = 128

    /// Claims `key` (already scoped by the verified session or the document) for the
    /// request whose `fingerprint` is given.
    public func claim(_ key: String, fingerprint: [UInt8], responder: HTTPResponder, now: Double) -> Claim {
        let (claim, replay): (Claim, HTTPResponse?) = entries.withLock { e in
            if let existing = e[key], existing.fingerprint != fingerprint {
                if case .done(_, let at, _) = existing, now - at >= ttl {
                    // Expired: the key is free again.
                } else {
                    return (.handled, Idempotency.reused.response)
                }
            }
            switch e[key] {
            case .done(let response, let at, _) where now - at < ttl:
                return (.handled, Idempotency.replayed(response))
            case .pending(var waiters, let started, _):
                waiters.append(responder)
                e[key] = .pending(waiters: waiters, started: started, fingerprint: fingerprint)
                return (.handled, nil)
            default:
                e[key] = .pending(waiters: [], started: now, fingerprint: fingerprint)
                return (.proceed, nil)
            }
        }
        if let replay { responder.send(replay) }
        if case .proceed = claim { remember(key) }
        return claim
    }

    /// Records the answer and sends it to every resend that waited for it.
    /// Answers that changed nothing because the request was bad are forgotten, so the
    /// client can fix the request and reuse the key.
    public func complete(_ key: String, with response: HTTPResponse, now: Double) {
        let waiters: [HTTPResponder] = entries.withLock { e in
            guard case .pending(let waiters, _, let fingerprint) = e[key] else { return [] }
            if Idempotency.keeps(response) {
                // A large answer is not kept whole: its replays hear that it was applied.
                let keptAnswer = Idempotency.keptBytes(response) > Idempotency.maxKeptAnswerBytes
                    ? Idempotency.notKept.response : response
                e[key] = .done(keptAnswer, at: now, fingerprint: fingerprint)
                kept.withLock { $0 += Idempotency.keptBytes(keptAnswer) }
            } else {
                e.removeValue(forKey: key)
            }
            return waiters
        }
        for w in waiters { w.send(Idempotency.replayed(response)) }
        forgetOldestOverBudget()
    }

    /// Forgets the oldest answers while the kept ones exceed `budgetBytes`.
    private func forgetOldestOverBudget() {
        while kept.withLock({ $0 }) > budgetBytes {
            guard let key = order.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return }
            forget([key])
        }
    }

    /// Drops the answered ones among `keys` (a pending one is still being answered).
    private func forget(_ keys: [String]) {
        let freed = entries.withLock { e -> Int in
            var freed = 0
            for k in keys {
                if case .done(let response, _, _) = e[k] {
                    freed += Idempotency.keptBytes(response)
                    e.removeValue(forKey: k)
                }
            }
            return freed
        }
        kept.withLock { $0 -= freed }
    }

    /// What identifies a request for its key: method, path and query (so `?scope=session` and
    /// `?scope=document` differ, and an absolute-form target is the same request as its
    /// origin-form), content type and body.
    public static func fingerprint(of request: HTTPRequest) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(request.target.utf8.count + request.body.count + 48)
        bytes += request.method.rawValue.utf8
        bytes.append(0)
        bytes += request.path.utf8
        if let query = request.query { bytes.append(UInt8(ascii: "?")); bytes += query.utf8 }
        bytes.append(0)
        bytes += (request.headers["Content-Type"] ?? "").utf8
        bytes.append(0)
        bytes += request.body
        return Secrets.sha256(bytes)
    }

    private func remember(_ key: String) {
        let evicted: [String] = order.withLock { o in
            o.append(key)
            guard o.count > capacity else { return [] }
            let drop = o.count - capacity
            let gone = Array(o.prefix(drop))
            o.removeFirst(drop)
            return gone
        }
        guard !evicted.isEmpty else { return }
        forget(evicted)
    }
}

extension IdempotencyCache: IdempotencyStore {
    func perform(_ key: String, fingerprint: [UInt8], responder: HTTPResponder,
                 work: @escaping @Sendable (HTTPResponder) -> Void) {
        guard case .proceed = claim(key, fingerprint: fingerprint, responder: responder, now: clock()) else { return }
        work(HTTPResponder { [self] response in
            complete(key, with: response, now: clock())
            responder.send(response)
        })
    }

    /// Nothing to do: expired answers are found so when asked for, and `capacity` bounds them.
    func expire() {}
}
