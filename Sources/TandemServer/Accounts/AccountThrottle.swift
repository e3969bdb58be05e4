import Foundation
import Synchronization

/// Failed sign-ins per account, as a token bucket: `count` failures at once, given back
/// evenly over `seconds`. An account out of them is refused before its password is checked,
/// so guessing one account's password from many addresses is as slow as from one. (The
/// price: someone who knows a name can keep its owner waiting; the per-address `auth` limit
/// and the bounded table keep that to a nuisance.) At most `maxAccounts` are remembered.
///
/// Every node of a cluster counts an account's failures together: the bucket of an account
/// that exists is also kept in the store (`metaKey`), read at each sign-in and written after
/// each failure, before the answer, so that two nodes do not give a guesser twice the tries.
/// Names nobody has are counted here only (storing them would let anyone fill the store with
/// made-up names), but are read and written as much (`unknownNamesKey`), so that the time
/// of an answer tells nothing.
final class AccountThrottle: Sendable {
    struct Bucket: Sendable, Equatable { var tokens: Double; var updated: Double }
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

    /// Seconds until `name` may try again, or nil if it may now: by this process's count and,
    /// when given, the store's.
    func wait(for name: String, stored: Bucket? = nil, now: Double) -> Double? {
        let local = buckets.withLock { refilled($0[name], now: now) }
        let tokens = min(local.tokens, stored.map { refilled($0, now: now).tokens } ?? count)
        return tokens >= 1 ? nil : (1 - tokens) * seconds / count
    }

    /// The store's bucket after one more failure.
    func failing(_ stored: Bucket?, now: Double) -> Bucket {
        var b = refilled(stored, now: now)
        b.tokens = max(0, b.tokens - 1)
        return b
    }

    /// Where the store keeps an account's bucket, by its sign-in name.
    static func metaKey(_ name: String) -> String { "sign-in-failures:" + name }
    /// The one row a failure for a name nobody has writes (never read), for the same time.
    static let unknownNamesKey = "sign-in-failures"

    static func encode(_ b: Bucket) -> [UInt8] {
        withUnsafeBytes(of: b.tokens.bitPattern.bigEndian, Array.init) + withUnsafeBytes(of: b.updated.bitPattern.bigEndian, Array.init)
    }

    static func decode(_ bytes: [UInt8]) -> Bucket? {
        guard bytes.count == 16 else { return nil }
        func double(_ at: Int) -> Double {
            Double(bitPattern: bytes[at..<at + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        }
        let b = Bucket(tokens: double(0), updated: double(8))
        return b.tokens.isFinite && b.updated.isFinite ? b : nil
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
