import Foundation
import Testing
@testable import TandemCore

@Suite struct SnapshotTests {
    func scopes(_ doc: Document) -> [UndoScope] { [.document, .session("a"), .session("b"), .session("c")] }

    @Test func snapshotRestoreAndReplayGiveTheSameHistory() throws {
        let doc = Document(text: "start ")
        var events: [DocumentEvent] = []
        var recording = false
        doc.journal = { if recording { events.append($0) } }
        let um = doc.undoManager
        try doc.apply(ins(doc, "abc", at: 6), session: "a", time: 0)
        try doc.apply(ins(doc, "X", at: 0), session: "b", time: 0.5)
        um.beginUndoGrouping(session: "a")
        try doc.apply(del(doc, 1, 3), session: "a", time: 1)
        um.setActionName("Cut", scope: .session("a"))
        try doc.undo(scope: .session("b"), time: 2)            // a's group still open, not closed
        recording = true
        let snapshot = doc.snapshot()
        let data = try JSONEncoder().encode(snapshot)
        try doc.apply(ins(doc, "d", at: 2), session: "a", time: 3)
        try um.endUndoGrouping(session: "a")
        try doc.apply(ins(doc, "zz", at: 0), session: "c", time: 4)
        um.setLevelsOfUndo(5, scope: .document)
        try doc.undo(scope: .session("a"), time: 5)
        try doc.apply(ins(doc, "q", at: 1), session: nil, options: .init(actionName: "Q"), time: 6)
        doc.updateChangeCount(.cleared)

        let restored = try Document(snapshot: JSONDecoder().decode(DocumentSnapshot.self, from: data))
        for event in events { try restored.replay(event) }
        #expect(restored.text == doc.text)
        #expect(restored.revision == doc.revision)
        #expect(restored.changeCount == doc.changeCount)
        for scope in scopes(doc) { #expect(restored.undoManager.history(scope) == doc.undoManager.history(scope)) }
        for scope in scopes(doc) {
            while doc.undoManager.canUndo(scope) {
                let a = try doc.undo(scope: scope, time: 9)
                let b = try restored.undo(scope: scope, time: 9)
                #expect(a.operation == b.operation && a.range == b.range)
                #expect(doc.text == restored.text)
            }
        }
        #expect(try doc.changes(since: 0).map(\.operation) == restored.changes(since: 0).map(\.operation))
    }
}
