import Synchronization
import TandemCore
import TandemStore

extension ClusterSync {
    /// A session's end on a node of a cluster (`SessionEnds.storeSessionEnd`): one sequenced
    /// unit over every document, each caught up under its row lock first, so the removal of
    /// the session's groups extends the journal every node shares instead of racing another
    /// node's change; the pasteboards' end and the session's row go in the same transaction.
    /// The outcome rules are a single node's; with no document open, it is a single node's
    /// unit too (`SessionEnds.submitAlone`).
    func storeSessionEnd(_ end: SessionEnding, ends: SessionEnds) {
        guard !end.handles.isEmpty else { return ends.submitAlone(end) }
        if end.rollBack, let error = ends.refusingStore(end.handles) { return end.then(.failure(error)) }
        let (session, handles, pasteboardEnd, rollBack, then) = (end.session, end.handles, end.pasteboardEnd, end.rollBack, end.then)
        let delivery = delivery()
        let outcome = SessionEndOutcome(steps: handles.count + 1) { [self] result, ended in delivery { [self] in
            if case .failure(let error) = result, rollBack {
                for e in ended where e.journaled { persistence.storeFailed(handles[e.index], error: error) }
                // Never stored: back where they were, unless the text went back under them.
                for e in ended {
                    guard let selection = e.selection else { continue }
                    handles[e.index].executor.sync { st in try? st.document.setSelection(selection, for: session) }
                }
                return then(result)
            }
            pasteboards.install(pasteboardEnd, publish: events.publishPasteboard)
            for e in ended where e.present { events.broadcastPresence(handles[e.index]) }
            then(result)
        } }
        var steps = handles.enumerated().map { i, handle in
            OrderedStep(handle: handle, apply: { st in
                guard !st.deleted else {
                    outcome.report(nil, .success(()))
                    return .answer {}
                }
                st.document.undoManager.removeAllActions(withTarget: session)
                let selection = st.document.selection(for: session)
                let ended = SessionEndOutcome.Ended(
                    index: i, selection: selection,
                    present: selection != nil || handle.events.sessions.contains(session),
                    // The unit stores what the buffer holds now (`runUnit`'s pending journal).
                    journaled: !(st.journal?.events.isEmpty ?? true))
                st.document.removeSelection(for: session)
                return .store(PreparedUnit(writes: []) { outcome.report(ended, $0) })
            }, fail: { outcome.refused($0) }, joinsLate: false)
        }
        let rest = pasteboardEnd.writes + [StoreWrite.deleteSession(session), .forgetOpened(person: session)]
        steps.append(OrderedStep(handle: handles[0], apply: { _ in
            .store(PreparedUnit(writes: rest) { outcome.report(nil, $0) })
        }, fail: { outcome.refused($0) }, joinsLate: false))
        replication.order(steps)
    }
}

/// The steps of a sequenced session end reporting in (on the writer's thread, or at once when
/// refused): once every one has, the end's outcome is known.
final class SessionEndOutcome: Sendable {
    /// A document the session was in.
    struct Ended: Sendable {
        var index: Int
        var selection: Selection?
        var present: Bool
        var journaled: Bool
    }

    private struct State {
        var waiting: Int
        var failure: StoreError?
        var ended: [Ended] = []
    }

    private let state: Mutex<State>
    private let done: @Sendable (Result<Void, StoreError>, [Ended]) -> Void

    init(steps: Int, done: @escaping @Sendable (Result<Void, StoreError>, [Ended]) -> Void) {
        state = Mutex(State(waiting: steps))
        self.done = done
    }

    func report(_ ended: Ended?, _ result: Result<Void, StoreError>) {
        finishOne { s in
            if let ended { s.ended.append(ended) }
            if case .failure(let error) = result { s.failure = s.failure ?? error }
        }
    }

    /// A step that never ran (the unit could not start, or the sequencer was full).
    func refused(_ error: APIError) {
        finishOne { s in s.failure = s.failure ?? .io("the session's end was not stored: \(error.code)") }
    }

    private func finishOne(_ note: (inout State) -> Void) {
        let finished = state.withLock { s -> (StoreError?, [Ended])? in
            note(&s)
            s.waiting -= 1
            return s.waiting == 0 ? (s.failure, s.ended) : nil
        }
        guard let (failure, ended) = finished else { return }
        done(failure.map { .failure($0) } ?? .success(()), ended)
    }
}
