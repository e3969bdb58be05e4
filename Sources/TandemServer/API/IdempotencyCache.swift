import Foundation
import Synchronization
import TandemHTTP

/// Remembers the answer to each `Idempotency-Key`, so a client that lost a response can
/// resend and get the first answer again without the change happening twice. A resend that
/// arrives while the first is still in flight waits for the same answer.
public final class IdempotencyCache: Sendable {
    enum Entry {
        case pending(waiters: [HTTPResponder], started: Double)
        case done(HTTPResponse, at: Double)
    }

    public enum Claim {
        /// First time this key is seen: do the work, then call `complete`.
        case proceed
        /// Already answered, or now waiting for the first answer: nothing more to do.
        case handled
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let order = Mutex<[String]>([])
    private let capacity: Int
    private let ttl: Double

    public init(capacity: Int = 50_000, ttl: Double = 24 * 3600) {
        self.capacity = capacity
        self.ttl = ttl
    }

    public static let maxKeyLength = 128

    /// Claims `key` (already scoped by session or document) for this request.
    public func claim(_ key: String, responder: HTTPResponder, now: Double) -> Claim {
        let (claim, replay): (Claim, HTTPResponse?) = entries.withLock { e in
            switch e[key] {
            case .done(let response, let at) where now - at < ttl:
                return (.handled, response)
            case .pending(var waiters, let started):
                waiters.append(responder)
                e[key] = .pending(waiters: waiters, started: started)
                return (.handled, nil)
            default:
                e[key] = .pending(waiters: [], started: now)
                return (.proceed, nil)
            }
        }
        if let replay { responder.send(Self.replayed(replay)) }
        if case .proceed = claim { remember(key) }
        return claim
    }

    /// Records the answer and sends it to every resend that waited for it.
    /// Answers that changed nothing because the request was bad are forgotten, so the
    /// client can fix the request and reuse the key.
    public func complete(_ key: String, with response: HTTPResponse, now: Double) {
        let waiters: [HTTPResponder] = entries.withLock { e in
            guard case .pending(let waiters, _) = e[key] else { return [] }
            if response.status.code >= 400 && response.status.code != 409 {
                e.removeValue(forKey: key)
            } else {
                e[key] = .done(response, at: now)
            }
            return waiters
        }
        for w in waiters { w.send(Self.replayed(response)) }
    }

    private static func replayed(_ response: HTTPResponse) -> HTTPResponse {
        var r = response
        r.headers.set("Idempotent-Replayed", "true")
        return r
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
        entries.withLock { e in
            for k in evicted {
                if case .done = e[k] { e.removeValue(forKey: k) }
            }
        }
    }
}
