import Synchronization
import TandemCore
import TandemStore

/// The store's outcomes for one document's changes, in commit order, waiting for the
/// document's executor. The store's completion only posts here; the first outcome of a batch
/// sends one delivery that takes them all, so a busy document is published once per group
/// commit, not once per keystroke.
final class CommitInbox: Sendable {
    struct Outcome: Sendable {
        var change: Change
        var notification: String
        /// History notifications that belong before the change (a group an undo closed first).
        var preceding: [String]
        var stored: Result<Void, StoreError>
        /// Runs once the outcome is published (or the failure handled): answers the request.
        var answer: @Sendable (Result<Void, StoreError>) -> Void
    }

    private let pending = Mutex<[Outcome]>([])

    /// Adds `outcome`; true when the inbox was empty, so the caller sends the delivery.
    func post(_ outcome: Outcome) -> Bool {
        pending.withLock { p in
            p.append(outcome)
            return p.count == 1
        }
    }

    func take() -> [Outcome] {
        pending.withLock { p in
            var taken: [Outcome] = []
            swap(&taken, &p)
            return taken
        }
    }
}
