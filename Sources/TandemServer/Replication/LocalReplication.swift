import Logging
import TandemStore

/// One node alone with its store. A step runs in its document's executor (on the sending
/// thread when the document is idle) and what it returns is submitted from there, so the
/// store sees each document's writes in the order memory made them.
struct LocalReplication: Replication {
    let store: any DocumentStore

    var shared: Bool { false }
    var writesJournalAlone: Bool { true }
    var storedChangesAreOwn: Bool { true }

    func attach(_ documents: DocumentService) {}

    func order(_ steps: [OrderedStep]) {
        if steps.count == 1 {
            let step = steps[0]
            step.handle.executor.async { [store] st in
                switch step.apply(&st) {
                case .answer(let answer): return answer
                case .store(let unit):
                    store.submit(unit.writes, completion: unit.stored)
                    return nil
                }
            }
            return
        }
        // Several documents, all or none: entered together in id order, stored as one unit.
        let sorted = steps.enumerated().sorted { $0.element.handle.id < $1.element.handle.id }.map(\.element)
        var answers: [@Sendable () -> Void] = []
        var units: [PreparedUnit] = []
        DocumentExecutor.syncAll(sorted.map(\.handle.executor)) { held in
            for (i, step) in sorted.enumerated() {
                switch held(i, { step.apply(&$0) }) {
                case .answer(let answer): answers.append(answer)
                case .store(let unit): units.append(unit)
                }
            }
            if !units.isEmpty {
                let stored = units.map(\.stored)
                store.submit(units.flatMap(\.writes)) { result in for s in stored { s(result) } }
            }
        }
        for answer in answers { answer() }
    }

    func afterSync(_ next: @escaping @Sendable (StoreError?) -> Void) { next(nil) }

    func health(now: Double) -> StoreHealth? { nil }

    func prepare() throws(StoreError) {}
    func start(logger: Logger) {}
    func stop() {}
    func tick(now: Double) {}

    /// Nobody else to see it: the selection is set in memory already.
    func shareSelection(of session: Session, in handle: DocumentHandle, then: @escaping DocumentService.Completion<Void>) {
        then(.success(()))
    }

    func selectionRemoved(of session: String, in handle: DocumentHandle) {}

    /// Numbered here, after the newest stored (`DocumentService.saveAlone`).
    func saveVersion(_ handle: DocumentHandle, _ request: SaveRequest, of documents: DocumentService,
                     then: @escaping DocumentService.Completion<StoredVersion>) {
        documents.saveAlone(handle, request, then: then)
    }

    func storeSessionEnd(_ end: SessionEnding, ends: SessionEnds) {
        ends.submitAlone(end)
    }
}
