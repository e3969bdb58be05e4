/// How the database writers (`GroupCommitWriter`, `PostgresWriter`) run a batch's jobs in
/// one transaction: in order, except that consecutive jobs that only append are stored by ONE
/// insert, made before the next job that writes anything else (or at the end). A busy
/// document's batch thus moves its revision once, not once per keystroke.
enum MergedAppends {
    /// `writes`: the job's writes when it keeps them as data (nil for a closure, which is
    /// run as it is); `insert` stores appended changes; `run` runs any other job.
    static func run<Job, Failure: Error>(
        _ jobs: [Job],
        writes: (Job) -> [StoreWrite]?,
        insert: ([StoredChange]) throws(Failure) -> Void,
        run: (Job) throws(Failure) -> Void
    ) throws(Failure) {
        var appends: [StoredChange] = []
        for job in jobs {
            if let writes = writes(job), writes.allSatisfy(\.isAppend) {
                for case .append(let changes) in writes { appends += changes }
                continue
            }
            if !appends.isEmpty {
                try insert(appends)
                appends.removeAll(keepingCapacity: true)
            }
            try run(job)
        }
        if !appends.isEmpty { try insert(appends) }
    }
}
