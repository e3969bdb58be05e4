import Synchronization
import TandemCore

/// The changes of one group commit, gathered by the store's completions on its writer thread
/// and published together once the batch is done (`ServerContext.publishCommits`): a busy
/// document's lock is then taken and its event stream fed once per batch, not per keystroke.
final class CommitPublisher: Sendable {
    struct Entry: Sendable {
        var handle: DocumentHandle
        var change: Change
        /// Its `change` and `history` events, framed on the request's thread while the change
        /// was made: the thread that publishes runs once per group commit for every change in
        /// it, so what it does lengthens every commit's wait.
        var frames: [UInt8]
        /// Answers the request that made the change.
        var answer: @Sendable () -> Void
    }

    private let pending = Mutex<[Entry]>([])

    func add(_ entry: Entry) {
        pending.withLock { $0.append(entry) }
    }

    func take() -> [Entry] {
        pending.withLock { pending in
            var taken: [Entry] = []
            swap(&taken, &pending)
            return taken
        }
    }
}
