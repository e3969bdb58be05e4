import Glibc

/// The lock around one document's state. Not `Synchronization.Mutex`: on Linux that one is a
/// priority-inheritance futex that spins in user space when contended, and under the editing
/// load (two event loops and the store's writer taking one document's lock, on two cores
/// shared with the clients) that spinning took CPU the lock's holder needed. A plain pthread
/// mutex puts the waiter to sleep instead.
final class DocumentLock<Value>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    nonisolated(unsafe) private var value: Value

    init(_ value: sending Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// `body`'s result, or nil at once when another thread holds the lock: an event loop
    /// deciding where work goes asks this way, so that it never waits behind heavy work.
    func withLockIfAvailable<Result>(_ body: (inout sending Value) -> sending Result) -> sending Result? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return body(&value)
    }

    /// Runs `body` with every one of `locks` held, taken in the order given: callers pass
    /// them in one fixed order (by document id) so that two such calls never deadlock.
    /// `body` reaches each value through the `Held` it is given, by position.
    static func withAll<Result>(_ locks: [DocumentLock<Value>], _ body: (Held) -> Result) -> Result {
        for lock in locks { pthread_mutex_lock(lock.mutex) }
        defer { for lock in locks.reversed() { pthread_mutex_unlock(lock.mutex) } }
        return body(Held(locks: locks))
    }

    /// The values of locks that `withAll` holds; valid only inside its body.
    struct Held {
        fileprivate let locks: [DocumentLock<Value>]

        func callAsFunction<T>(_ index: Int, _ body: (inout Value) -> T) -> T {
            body(&locks[index].value)
        }
    }
}
