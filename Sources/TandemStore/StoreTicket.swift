import Dispatch
import Foundation

/// The outcome of submitted writes, handed from the writer thread to whoever waits for it.
/// Submit under a lock, `wait()` after releasing it.
public final class StoreTicket: @unchecked Sendable {
    // NSLock rather than Mutex: the thread sanitizer understands pthread mutexes.
    private let lock = NSLock()
    private var result: Result<Void, StoreError>?
    private let done = DispatchSemaphore(value: 0)

    public init() {}

    public func finish(_ value: Result<Void, StoreError>) {
        lock.lock()
        result = value
        lock.unlock()
        done.signal()
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
