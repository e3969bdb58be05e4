import Foundation
import Synchronization

/// Failed sign-ins per account, as a token bucket: `count` failures at once, given back
/// evenly over `seconds`. An account out of them is refused before its password is checked,
/// so guessing one account's password from many addresses is as slow as from one. (The
/// price: someone who knows a name can keep its owner waiting; the per-address `auth` limit
/// and the bounded table keep that to a nuisance.) At most `maxAccounts` are remembered.
final class AccountThrottle: Sendable {
    private struct Bucket { var tokens: Double; var updated: Double }
    private let buckets = Mutex<[String: Bucket]>([:])
    let count: Double
    let seconds: Double
    static let maxAccounts = 100_000

    init(count: Int = 10, seconds: Double = 600) {
        self.count = Double(count)
        self.seconds = seconds
    }

    private func refilled(_ b: Bucket?, now: Double) -> Bucket {
        guard var b else { return Bucket(tokens: count, updated: now) }
        b.tokens = min(count, b.tokens + max(0, now - b.updated) * count / seconds)
        b.updated = now
        return b
    }

    /// Seconds until `name` may try again, or nil if it may now.
    func wait(for name: String, now: Double) -> Double? {
        let b = buckets.withLock { refilled($0[name], now: now) }
        return b.tokens >= 1 ? nil : (1 - b.tokens) * seconds / count
    }

    func failed(_ name: String, now: Double) {
        buckets.withLock { table in
            var b = refilled(table[name], now: now)
            b.tokens = max(0, b.tokens - 1)
            if table.count >= Self.maxAccounts, table[name] == nil {
                table = table.filter { refilled($0.value, now: now).tokens < count }
                if table.count >= Self.maxAccounts { table.removeAll(keepingCapacity: true) }
            }
            table[name] = b
        }
    }

    func succeeded(_ name: String) {
        _ = buckets.withLock { $0.removeValue(forKey: name) }
    }
}
