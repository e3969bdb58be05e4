import Foundation

/// A value behind a lock. Not `Synchronization.Mutex`: on Linux that one is built on futexes
/// the thread sanitizer cannot see, so it reports races between accesses it does guard.
/// `NSLock` is a pthread mutex, which the sanitizer understands.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
