import TandemCore

extension DocumentService {
    /// With `logKept` set (a testing knob), keeps only that many changes in memory, so that a
    /// test can reach `410 revision_trimmed` and the `reset` event without thousands of
    /// changes. The changes leaving memory are archived as usual; the rest of the store is
    /// not touched: a restart rebuilds the log from the snapshot as usual. Only a document at rest is trimmed (nothing waiting for its commit), as after
    /// a snapshot.
    func trimLogsToConfiguredLength() {
        guard let kept = configuration.logKept else { return }
        for handle in documents.withLock({ Array($0.values) }) {
            let leaving = handle.executor.sync { st -> [Change] in
                let document = st.document
                guard !st.deleted, !st.savingError, st.inFlight.isEmpty, st.committedRevision == document.revision,
                      document.revision - (document.firstAvailableRevision - 1) > kept
                else { return [] }
                let leaving = configuration.archiveBytes > 0 ? Self.changes(of: document, through: document.revision - kept) : []
                document.trimLog(through: document.revision - kept, journaled: !replication.shared)
                return leaving
            }
            archive(leaving, of: handle.id)
        }
    }
}
