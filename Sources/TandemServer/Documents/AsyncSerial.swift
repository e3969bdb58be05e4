import Synchronization

/// Runs jobs one at a time, in the order they were submitted, where a job ends when it calls
/// the completion it is handed, not when it returns: a mutex for work that waits for the
/// store without holding a thread. A job starts on the thread that submitted it (when none is
/// running) or on the thread that completed the one before it (where its outcome was delivered: an event loop or a global queue, never a store's thread), so
/// jobs must not block.
final class AsyncSerial: Sendable {
    typealias Job = @Sendable (_ done: @escaping @Sendable () -> Void) -> Void

    private struct State {
        var running = false
        var waiting: [Job] = []
        /// Set while a thread is starting jobs, so a job that completes at once hands the next
        /// one to that loop instead of starting it deeper in the stack.
        var draining = false
        var completedWhileDraining = false
    }

    private let state = Mutex(State())

    init() {}

    /// Queues `job`; it runs once every job submitted before it has called its completion.
    func run(_ job: @escaping Job) {
        let start = state.withLock { s -> Bool in
            if s.running { s.waiting.append(job); return false }
            s.running = true
            return true
        }
        if start { drain(first: job) }
    }

    private func drain(first: @escaping Job) {
        var next: Job? = first
        while let job = next {
            state.withLock { $0.draining = true; $0.completedWhileDraining = false }
            job { [self] in finished() }
            next = state.withLock { s -> Job? in
                s.draining = false
                guard s.completedWhileDraining else { return nil }
                s.completedWhileDraining = false
                return s.waiting.isEmpty ? nil : s.waiting.removeFirst()
            }
        }
    }

    private func finished() {
        let next = state.withLock { s -> Job? in
            if s.draining {
                // The loop in `drain` is still on the stack: it takes the next job.
                s.completedWhileDraining = true
                if s.waiting.isEmpty { s.running = false }
                return nil
            }
            guard !s.waiting.isEmpty else { s.running = false; return nil }
            return s.waiting.removeFirst()
        }
        if let next { drain(first: next) }
    }
}
