import Glibc
import Synchronization

/// The one owner of a document's state: a serial executor, as an actor's is, that runs one
/// job at a time over the value it owns; nothing reaches the value except through it.
///
/// - `async` sends a job: it runs on the sending thread when the executor is idle (an edit on
///   its event loop costs no hop), else after the jobs before it, on the thread running them.
///   Outcomes of the store come back this way, as messages (`CommitInbox`).
/// - `sync` runs a short body that must answer at once (a read, a selection) between jobs,
///   never inside one. Bodies never block and never enter the same executor again.
///
/// Not a Swift actor or a DispatchQueue: either hops to another thread for every job, a
/// context switch per keystroke on cores the loops share. Not `Synchronization.Mutex` for
/// the value's guard: on Linux that spins when contended, taking CPU its holder needs; a
/// pthread mutex puts the waiter to sleep.
final class DocumentExecutor<Value>: @unchecked Sendable {
    /// A job changes the value and may return work to run once the executor is left (answers,
    /// sends), on the same thread, before the next job: that work may enter the executor again.
    typealias Job = @Sendable (inout Value) -> (@Sendable () -> Void)?

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    nonisolated(unsafe) private var value: Value
    private let mailbox = Mutex(Mailbox())

    private struct Mailbox {
        var running = false
        var jobs: [Job] = []
    }

    init(_ value: sending Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Queues `job` after every job sent before it.
    func async(_ job: @escaping Job) {
        let start = mailbox.withLock { m -> Bool in
            if m.running { m.jobs.append(job); return false }
            m.running = true
            return true
        }
        guard start else { return }
        var next: Job? = job
        while let job = next {
            pthread_mutex_lock(mutex)
            let after = job(&value)
            pthread_mutex_unlock(mutex)
            after?()
            next = mailbox.withLock { m -> Job? in
                if m.jobs.isEmpty { m.running = false; return nil }
                return m.jobs.removeFirst()
            }
        }
    }

    /// Runs `body` between jobs and returns its result.
    func sync<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// `body`'s result, or nil at once while a job runs: an event loop deciding where work
    /// goes asks this way, so that it never waits behind heavy work.
    func syncIfIdle<Result>(_ body: (inout sending Value) -> sending Result) -> sending Result? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return body(&value)
    }

    /// Runs `body` between the jobs of every one of `executors`, entered in the order given:
    /// callers pass them in one fixed order (by document id) so that two such calls never
    /// deadlock. `body` reaches each value through the `Held` it is given, by position.
    static func syncAll<Result>(_ executors: [DocumentExecutor<Value>], _ body: (Held) -> Result) -> Result {
        for e in executors { pthread_mutex_lock(e.mutex) }
        defer { for e in executors.reversed() { pthread_mutex_unlock(e.mutex) } }
        return body(Held(executors: executors))
    }

    /// The values `syncAll` holds; valid only inside its body.
    struct Held {
        fileprivate let executors: [DocumentExecutor<Value>]

        func callAsFunction<T>(_ index: Int, _ body: (inout Value) -> T) -> T {
            body(&executors[index].value)
        }
    }
}
