import Dispatch
import Foundation

/// The outcome of submitted writes, handed from the writer thread to whoever needs it:
/// `whenFinished` calls back (what request handlers use: an event loop never waits), `wait()`
/// blocks (for background threads and tests). Submit under a lock, wait after releasing it.
public final class StoreTicket: @unchecked Sendable {
    // NSLock rather than Mutex: the thread sanitizer understands pthread mutexes.
    private let lock = NSLock()
    private var result: Result<Void, StoreError>?
    private var callbacks: [@Sendable (Result<Void, StoreError>) -> Void] = []
    private let done = DispatchSemaphore(value: 0)

    public init() {}

    public func finish(_ value: Result<Void, StoreError>) {
        lock.lock()
        result = value
        let waiting = callbacks
        callbacks = []
        lock.unlock()
        done.signal()
        for callback in waiting { callback(value) }
    }

    /// Calls `body` with the outcome once it is known: at once (on this thread) if it is,
    /// else on the thread that finishes the ticket (the store's writer).
    public func whenFinished(_ body: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        lock.lock()
        guard let result else {
            callbacks.append(body)
            lock.unlock()
            return
        }
        lock.unlock()
        body(result)
    }

    /// Blocks until `finish`; returns its result (also to later callers).
    @discardableResult
    public func wait() -> Result<Void, StoreError> {
        done.wait()
        done.signal()
        lock.lock()
        defer { lock.unlock() }
        return result!
    }
}
