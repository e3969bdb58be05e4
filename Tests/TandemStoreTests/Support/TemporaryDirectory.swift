import Foundation
@testable import TandemStore

/// A fresh directory under /tmp, removed when the test is done with it.
/// It also names the PostgreSQL schema of a test's `PostgresStore`, dropped with it.
final class TemporaryDirectory: Sendable {
    let path: String
    /// `t_` and the directory's UUID: a PostgreSQL schema of this test's own.
    let schemaName: String
    private let removals = Locked<[@Sendable () -> Void]>([])

    init() {
        let id = UUID().uuidString
        path = NSTemporaryDirectory() + "tandem-store-" + id
        schemaName = "t_" + id.lowercased().replacingOccurrences(of: "-", with: "")
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Runs `body` when the directory is removed (once the test is done with it).
    func onRemove(_ body: @escaping @Sendable () -> Void) {
        removals.withLock { $0.append(body) }
    }

    deinit {
        for removal in removals.withLock({ $0 }) { removal() }
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Small builders so tests read as what they store.
enum Fixture {
    static func document(_ id: String, title: String = "Title", time: Double = 1_700_000_000.25) -> StoredDocument {
        StoredDocument(id: id, title: title, created: time, modified: time + 1, metadata: Array("{\"levelsOfUndo\":0}".utf8))
    }

    static func change(_ document: String, _ revision: Int) -> StoredChange {
        StoredChange(documentID: document, revision: revision, payload: Array("[\(revision),\"x\"]".utf8))
    }

    static func changes(_ document: String, _ revisions: ClosedRange<Int>) -> [StoredChange] {
        revisions.map { change(document, $0) }
    }
}

/// Runs `body` on `count` real threads at once and waits for all of them.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.start()
    }
    group.wait()
}
