import Synchronization
import TandemCore
import TandemStore

/// The change path of a node in a cluster (docs/scale-out.md): a change waits in the
/// `ClusterSequencer`; the next sequenced unit, in its place among the store's writes, locks
/// the heads of its documents, catches each one up from the log (what other nodes committed),
/// applies the waiting changes in the document's executor exactly as a single node does, and
/// stores them in the same transaction. One order per document across nodes, no retries: a
/// node that wants the lock waits for the other's short transaction.
///
/// The unit's body is the one place a store runs code of the server's, inside its transaction
/// (`PostgresStore.sequence`, as a GRDB `write { db in }` does): the row lock is what orders a
/// document's changes across nodes. It is the replication's code, not the document service's:
/// it reaches documents only through their executors, and its outcome goes back as a message
/// to each change's `CommitInbox`. Made for each unit; it keeps nothing between units.
struct SequencedUnits: Sendable {
    let cluster: Cluster
    let documents: DocumentService

    /// Steps of several documents in one unit: stored together or not at all (a session's end).
    func sequence(all steps: [OrderedStep]) {
        switch cluster.sequencer.add(all: steps) {
        case .queued: return
        case .refused: for step in steps { step.fail(.databaseBusy) }
        case .schedule: break
        }
        let unit = SequencedUnit(cluster.sequencer)
        cluster.store.sequence({ [self] tx throws(StoreError) in
            try runUnit(unit, tx)
        }, completion: { result in
            unit.finish(result)
        })
    }

    /// Inside the unit's transaction, on the writer: the steps waiting now, by document.
    private func runUnit(_ unit: SequencedUnit, _ tx: SequencedTransaction) throws(StoreError) -> [StoreWrite] {
        var steps = cluster.sequencer.take()
        unit.took(steps)
        guard !steps.isEmpty else { return [] }
        var order: [String] = []
        var byDocument: [String: [Int]] = [:]
        for (i, step) in steps.enumerated() {
            if byDocument[step.handle.id] == nil { order.append(step.handle.id) }
            byDocument[step.handle.id, default: []].append(i)
        }
        let heads = try tx.lockHeads(order, journalPrefix: ClusterEntry.journalPrefix)
        // While the locks were awaited (another node's unit held one), more changes to these
        // documents came: they ride in this unit, after the ones before them.
        let late = cluster.sequencer.take(for: Set(order))
        if !late.isEmpty {
            unit.took(late)
            for step in late {
                byDocument[step.handle.id]!.append(steps.count)
                steps.append(step)
            }
        }
        var writes: [StoreWrite] = []
        for id in order {
            let indexes = byDocument[id]!
            let handle = steps[indexes[0]].handle
            if let head = heads[id] {
                try ClusterCatchUp(documents).catchUp(handle, revision: head.revision, journal: head.journal, reloadAllowed: true) { after throws(StoreError) in
                    try tx.changes(document: id, after: after)
                }
                if indexes.contains(where: { steps[$0].numbersVersion }) {
                    let ledger = try tx.versionLedger(document: id)
                    handle.versions.withLock { $0 = ledger }
                }
            } else {
                // Deleted by another node: the steps find it deleted and answer 404.
                documents.handles.forgetIfCurrent(handle)
            }
            var answers: [@Sendable () -> Void] = []
            handle.executor.sync { st in
                for i in indexes {
                    switch steps[i].apply(&st) {
                    case .answer(let answer): answers.append(answer)
                    case .store(let prepared):
                        writes += prepared.writes
                        unit.add(prepared.stored)
                    }
                    unit.applied(i)
                }
                // Events no change carried (an undo refused after dropping groups it found
                // erased): stored now, so every node's journal holds all this one replayed.
                if !st.deleted, let pending = documents.persistence.pendingJournalWrite(st, id: id) { writes.append(pending) }
            }
            for answer in answers { answer() }
        }
        return writes
    }
}

/// One sequenced unit's steps and what became of them, shared by its body and its completion
/// (both on the writer's thread, one after the other).
final class SequencedUnit: Sendable {
    private struct State {
        var ran = false
        var steps: [OrderedStep] = []
        var applied: [Bool] = []
        var stored: [@Sendable (Result<Void, StoreError>) -> Void] = []
    }

    private let state = Mutex(State())
    private let sequencer: ClusterSequencer

    init(_ sequencer: ClusterSequencer) {
        self.sequencer = sequencer
    }

    /// The unit took `steps` (again, for late joiners: they are added after the others).
    func took(_ steps: [OrderedStep]) {
        state.withLock {
            $0.ran = true
            $0.steps += steps
            $0.applied += Array(repeating: false, count: steps.count)
        }
    }

    func applied(_ index: Int) { state.withLock { $0.applied[index] = true } }

    func add(_ stored: @escaping @Sendable (Result<Void, StoreError>) -> Void) { state.withLock { $0.stored.append(stored) } }

    /// The unit committed or failed: every applied change hears the outcome (a failure puts
    /// its document back as stored); steps never applied are refused with 503.
    func finish(_ result: Result<Void, StoreError>) {
        let s = state.withLock { $0 }
        for stored in s.stored { stored(result) }
        guard case .failure = result else { return }
        // The unit failed before its body ran (no connection): the steps still wait.
        let waiting = s.ran ? [] : sequencer.take()
        for step in waiting { step.fail(.storageFailing) }
        for (step, applied) in zip(s.steps, s.applied) where !applied { step.fail(.storageFailing) }
    }
}
