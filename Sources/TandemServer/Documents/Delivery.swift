import Dispatch
import TandemStore

/// Where a store's outcome is handled: on the event loop that asked for the work, so that its
/// answer leaves with no further hop, else (work sent from the pool or a timer) on a global
/// queue. Never on a store's thread: the store only hands outcomes back, and server code
/// (encoding, framing, the document's executor) runs here.
struct Delivery: Sendable {
    private let run: @Sendable (@escaping @Sendable () -> Void) -> Void

    init(_ run: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.run = run
    }

    func callAsFunction(_ work: @escaping @Sendable () -> Void) { run(work) }

    static let global = Delivery { DispatchQueue.global().async(execute: $0) }

    /// A completion that runs where this delivery runs work.
    func completion<T: Sendable>(_ body: @escaping @Sendable (T) -> Void) -> @Sendable (T) -> Void {
        { value in run { body(value) } }
    }
}

extension DocumentStore {
    /// `submit`, with `completion` run by `delivery` rather than on the store's thread.
    func submit(_ writes: [StoreWrite], delivery: Delivery, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        submit(writes) { result in delivery { completion(result) } }
    }
}
