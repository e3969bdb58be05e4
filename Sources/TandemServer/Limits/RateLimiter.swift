import Foundation
import Synchronization
import TandemHTTP

/// Token buckets per limit and client (`IPAddress.limitKey`). Only creations and refused
/// credentials reach it, so an edit's path never takes its lock. Memory stays bounded: full
/// buckets are forgotten (a client that stopped needs no record), and at most `maxClients`
/// are kept, the table starting afresh rather than growing past it.
final class RateLimiter: Sendable {
    struct Key: Hashable {
        var name: RateLimits.Name
        var client: IPAddress
    }

    struct Bucket {
        var tokens: Double
        var updated: Double
    }

    let limits: RateLimits
    private let buckets = Mutex<[Key: Bucket]>([:])
    private let lastSweep = Mutex<Double>(0)
    /// Whether any bucket of `auth` may be empty: until one is, checking a credential costs
    /// one atomic load and no lock.
    private let authExhausted = Atomic<Bool>(false)
    private let clock: @Sendable () -> Double
    static let maxClients = 100_000

    init(limits: RateLimits, clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.limits = limits
        self.clock = clock
    }

    /// Takes one from `client`'s bucket of `name`: nil if there was one, else the seconds
    /// until there is.
    func take(_ name: RateLimits.Name, for client: IPAddress) -> Double? {
        guard let rule = limits.rules[name], rule.count > 0 else { return nil }
        let now = clock()
        let key = Key(name: name, client: client.limitKey)
        let (wait, empty): (Double?, Bool) = buckets.withLock { b in
            var bucket = Self.refilled(b[key], rule: rule, now: now)
            guard bucket.tokens >= 1 else { return ((1 - bucket.tokens) / rule.perSecond, true) }
            bucket.tokens -= 1
            if b.count >= Self.maxClients, b[key] == nil { b.removeAll(keepingCapacity: true) }
            b[key] = bucket
            return (nil, bucket.tokens < 1)
        }
        // An empty bucket makes `refusesCredentials` look it up.
        if name == .auth && empty { authExhausted.store(true, ordering: .relaxed) }
        sweepIfDue(now)
        return wait
    }

    /// False while no client's `auth` bucket can be empty: the check every credentialed
    /// request makes first, before its address is even parsed.
    var mayRefuseCredentials: Bool { authExhausted.load(ordering: .relaxed) }

    /// The seconds until `client` may try a credential again, or nil if it may now.
    func refusesCredentials(from client: IPAddress) -> Double? {
        guard authExhausted.load(ordering: .relaxed), let rule = limits.rules[.auth], rule.count > 0 else { return nil }
        let now = clock()
        let key = Key(name: .auth, client: client.limitKey)
        let bucket = buckets.withLock { Self.refilled($0[key], rule: rule, now: now) }
        sweepIfDue(now)
        return bucket.tokens >= 1 ? nil : (1 - bucket.tokens) / rule.perSecond
    }

    private static func refilled(_ bucket: Bucket?, rule: RateLimits.Rule, now: Double) -> Bucket {
        guard var bucket else { return Bucket(tokens: Double(rule.count), updated: now) }
        bucket.tokens = min(Double(rule.count), bucket.tokens + max(0, now - bucket.updated) * rule.perSecond)
        bucket.updated = now
        return bucket
    }

    /// About once a second: forgets buckets that have filled up again.
    private func sweepIfDue(_ now: Double) {
        let due = lastSweep.withLock { last -> Bool in
            guard now - last >= 1 else { return false }
            last = now
            return true
        }
        guard due else { return }
        let anyAuthEmpty = buckets.withLock { b -> Bool in
            var empty = false
            b = b.filter { key, bucket in
                guard let rule = limits.rules[key.name] else { return false }
                let r = Self.refilled(bucket, rule: rule, now: now)
                if key.name == .auth && r.tokens < 1 { empty = true }
                return r.tokens < Double(rule.count)
            }
            return empty
        }
        if !anyAuthEmpty { authExhausted.store(false, ordering: .relaxed) }
    }

    /// `429 rate_limited` naming the limit, with `Retry-After` in whole seconds.
    func refusal(_ name: RateLimits.Name, retryAfter seconds: Double) -> APIError {
        let rule = limits.rules[name] ?? RateLimits.Rule(count: 0, seconds: 1)
        let after = max(1, Int(seconds.rounded(.up)))
        let what = name == .auth ? "refused credentials" : "\(name.rawValue) created"
        return APIError(.tooManyRequests, "rate_limited",
                        "rate limit '\(name.rawValue)': at most \(rule.count) \(what) per \(RateLimits.format(rule.seconds)) s from one client address; retry in \(after) s",
                        headers: ["Retry-After": String(after)])
    }
}
