import Dispatch
import Foundation
import GRDB

/// Copies the WAL into the database file on a connection and thread of its own.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses 1,000 WAL pages, on the
/// writer: that commit then also copied some 4 MB and synced the WAL and the database (5 to 20
/// ms on this kind of disk), and every change queued behind it waited that long, several
/// times a second under load, which set the p99 of an edit. Here a passive checkpoint from
/// another connection copies the bulk beside the writer's commits (SQLite only ever copies
/// frames of commits already made). It cannot finish alone: the writer keeps appending, and
/// the WAL restarts from its start only once every frame is copied, so it would grow without
/// end. The writer therefore finishes a pass between two batches (`onPass`), copying only
/// what came meanwhile, once the WAL holds `restartFrames` (or the store is quiet): that
/// short stop (two syncs) comes four times less often than SQLite's checkpoints did.
///
/// Durability is unchanged: the WAL is synced before its frames are copied and the database
/// after (`synchronous` NORMAL, the writer's own mode for `normal` and `full`; OFF for `off`).
final class Checkpointer: Sendable {
    private struct State {
        var commits = 0
        var closing = false
    }

    private let connection: DatabaseQueue
    private let state = Locked(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let checkpoints = Locked(0)
    private let passHandler = Locked<PassHandler?>(nil)

    private final class PassHandler: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Commits between checkpoints: at the 7 pages of a typical group commit, about the 1,000
    /// pages at which SQLite's own checkpoint ran.
    static let commitsPerCheckpoint = 128
    /// A store with a few commits is checkpointed this often all the same.
    static let idleInterval: DispatchTimeInterval = .seconds(1)
    /// WAL frames (pages) past which the writer is asked to finish a pass, so that the WAL
    /// starts over: 16 MB of 4 KB pages.
    static let restartFrames = 4096

    init(path: String, durability: Durability) throws {
        var configuration = Configuration()
        configuration.label = "TandemStore checkpointer"
        connection = try DatabaseQueue(path: path, configuration: configuration)
        try connection.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = \(durability.pragmaValue)")
        }
        let thread = Thread { [self] in run() }
        thread.name = "TandemStore checkpointer"
        thread.start()
    }

    /// How many passes have run.
    var count: Int { checkpoints.withLock { $0 } }

    /// Runs `handler` on the checkpointer's thread after each pass.
    func onPass(_ handler: @escaping @Sendable () -> Void) {
        passHandler.withLock { $0 = PassHandler(handler) }
    }

    /// Counts a commit of the writer; wakes the checkpointer every `commitsPerCheckpoint`.
    func committed() {
        let due = state.withLock { state in
            state.commits += 1
            return state.commits == Self.commitsPerCheckpoint
        }
        if due { wake.signal() }
    }

    /// Stops the thread after a last checkpoint. Idempotent.
    func close() {
        let first = state.withLock { state in
            defer { state.closing = true }
            return !state.closing
        }
        guard first else { return }
        wake.signal()
        finished.wait()
        try? connection.close()
    }

    private func run() {
        while true {
            _ = wake.wait(timeout: .now() + Self.idleInterval)
            let (commits, closing) = state.withLock { state in
                defer { state.commits = 0 }
                return (state.commits, state.closing)
            }
            if commits > 0 {
                // Passive: never waits for readers or the writer. A failure (an I/O error) is
                // left to the writer to meet and report; its next checkpoint tries again.
                if let frames = try? connection.writeWithoutTransaction({ db in try db.checkpoint(.passive).walFrameCount }) {
                    checkpoints.withLock { $0 += 1 }
                    let quiet = commits < Self.commitsPerCheckpoint
                    if !closing, frames >= Self.restartFrames || quiet { passHandler.withLock { $0 }?.run() }
                }
            }
            if closing { break }
        }
        finished.signal()
    }
}
