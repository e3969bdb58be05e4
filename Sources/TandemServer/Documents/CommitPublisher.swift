import Synchronization
import TandemCore

/// The changes of one group commit, gathered by the store's completions on its writer (or
/// syncer) thread and published together once the batch is done
/// (`DocumentService.publishCommits`): a busy document's lock is then taken and its event
/// stream fed once per batch, not per keystroke.
final class CommitPublisher: Sendable {
    struct Entry: Sendable {
        var handle: DocumentHandle
        var change: Change
        var notification: String
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
