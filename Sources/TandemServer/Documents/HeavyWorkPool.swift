import Dispatch
import Synchronization

/// Where work too heavy for an event loop runs: one job per lane (a document, or "" for
/// work with none) at a time and in the order it came, lanes taking turns on `width`
/// threads, so one client's heavy requests on its document never queue another document's
/// behind them, and the loops keep a core.
final class HeavyWorkPool: Sendable {
    typealias Job = @Sendable () -> Void

    private struct State {
        var pending: [String: [Job]] = [:]
        /// Lanes with work and no job running, in the order they became ready.
        var ready: [String] = []
        var workers = 0
    }

    private let state = Mutex(State())
    let width: Int

    init(width: Int) { self.width = max(1, width) }

    /// Queues `job` behind the lane's earlier jobs.
    func async(lane: String, _ job: @escaping Job) {
        let startWorker = state.withLock { s -> Bool in
            let idle = s.pending[lane] == nil
            s.pending[lane, default: []].append(job)
            // A lane already pending is either ready or running: it comes round again by itself.
            guard idle else { return false }
            s.ready.append(lane)
            guard s.workers < width else { return false }
            s.workers += 1
            return true
        }
        if startWorker { DispatchQueue.global(qos: .utility).async { [self] in work() } }
    }

    /// Runs one job of the lane that waited longest, then puts the lane back at the end of
    /// the line if it has more, until no lane is ready.
    private func work() {
        while let (lane, job) = next() {
            job()
            state.withLock { s in
                s.pending[lane]!.removeFirst()
                if s.pending[lane]!.isEmpty { s.pending[lane] = nil } else { s.ready.append(lane) }
            }
        }
    }

    private func next() -> (String, Job)? {
        state.withLock { s -> (String, Job)? in
            guard !s.ready.isEmpty else {
                s.workers -= 1
                return nil
            }
            let lane = s.ready.removeFirst()
            return (lane, s.pending[lane]![0])
        }
    }
}

extension HeavyWorkPool {
    /// Queues `job` in `handle`'s lane, counted in `handle.heavyJobs` until it returns.
    func async(for handle: DocumentHandle, _ job: @escaping Job) {
        handle.heavyJobs.add(1, ordering: .relaxed)
        async(lane: handle.id) {
            job()
            handle.heavyJobs.subtract(1, ordering: .relaxed)
        }
    }
}
