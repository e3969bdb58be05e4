import Dispatch
import Synchronization

/// How far this node's own cluster-feed entries are published in this process: a commit's
/// entries are in the feed the moment it commits, but its effects (a committed revision, an
/// answer, an event) are made visible a moment later, once the writer has completed its
/// batch. A node that reads its own entry in the feed waits here until that moment, so a
/// request never sees the cluster further along than the node it reached shows it.
public final class PublishedFeed: Sendable {
    private struct State {
        var published = 0
        var waiters: [(seq: Int, wake: DispatchSemaphore)] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// The newest own entry published.
    public var published: Int { state.withLock { $0.published } }

    /// Everything up to `seq` is published (called by the writer after the batch's completions).
    func advance(to seq: Int) {
        let woken = state.withLock { s -> [DispatchSemaphore] in
            guard seq > s.published else { return [] }
            s.published = seq
            let due = s.waiters.filter { $0.seq <= seq }.map(\.wake)
            s.waiters.removeAll { $0.seq <= seq }
            return due
        }
        for wake in woken { wake.signal() }
    }

    /// Blocks until `seq` is published or `timeout` passed (a commit whose outcome the
    /// writer never learned, its connection lost at COMMIT, is never published). Returns
    /// whether it was.
    @discardableResult
    public func wait(until seq: Int, timeout: DispatchTimeInterval = .seconds(1)) -> Bool {
        let wake = DispatchSemaphore(value: 0)
        let done = state.withLock { s -> Bool in
            if s.published >= seq { return true }
            s.waiters.append((seq, wake))
            return false
        }
        if done { return true }
        if wake.wait(timeout: .now() + timeout) == .success { return true }
        // Timed out: leave the list, unless `advance` took this waiter meanwhile.
        let removed = state.withLock { s -> Bool in
            guard let i = s.waiters.firstIndex(where: { $0.wake === wake }) else { return false }
            s.waiters.remove(at: i)
            return true
        }
        if !removed { wake.wait() }
        return !removed
    }
}
