import Foundation

/// The store's `Locked`, again for the tests: a value behind an `NSLock`, which the thread
/// sanitizer understands (it cannot see `Synchronization.Mutex`'s futexes on Linux).
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
