/// The jobs waiting for a store's writer thread, in submission order, and whether the store
/// is closing: kept behind its lock by `WriterThread`.
struct WriterQueue<Job: Sendable>: Sendable {
    private var jobs: [Job] = []
    /// Set by `close()`: no job is queued after it.
    private(set) var closing = false

    /// Queues `job`; false (and not queued) once closing.
    mutating func add(_ job: Job) -> Bool {
        guard !closing else { return false }
        jobs.append(job)
        return true
    }

    /// Every queued job, oldest first, and whether closing was seen: once it was, no job
    /// can follow, so that batch is the writer's last.
    mutating func takeAll() -> (jobs: [Job], closing: Bool) {
        defer { jobs.removeAll(keepingCapacity: true) }
        return (jobs, closing)
    }

    /// Marks the queue closing; true the first time only.
    mutating func close() -> Bool {
        defer { closing = true }
        return !closing
    }
}
