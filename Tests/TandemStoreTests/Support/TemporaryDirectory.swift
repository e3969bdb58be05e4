import Foundation
import TandemStore

/// A fresh directory under /tmp, removed when the test is done with it.
final class TemporaryDirectory: Sendable {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "tandem-store-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
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
