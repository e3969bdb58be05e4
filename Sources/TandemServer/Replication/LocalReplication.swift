import Logging
import TandemStore

/// One node alone with its store. A step runs in its document's executor (on the sending
/// thread when the document is idle) and what it returns is submitted from there, so the
/// store sees each document's writes in the order memory made them.
struct LocalReplication: Replication {
    let store: any DocumentStore

    var shared: Bool { false }

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
        var units: [DocumentService.PreparedUnit] = []
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
}
