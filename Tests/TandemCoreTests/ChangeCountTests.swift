import Foundation
import Testing
@testable import TandemCore

/// UIDocument counts an undo group once (when it closes) and takes it back with one undo.
@Suite struct ChangeCountTests {
    @Test func coalescedTypingCountsOnce() throws {
        let doc = Document()
        for (i, ch) in "hello".enumerated() {
            try doc.apply(ins(doc, String(ch), at: i), session: "a", time: Double(i) * 0.1)
        }
        #expect(doc.undoManager.history(.session("a")).undoStack.count == 1)
        #expect(doc.changeCount == 1)
        try doc.undo(scope: .session("a"), time: 1)
        #expect(doc.changeCount == 0 && !doc.hasUnsavedChanges)
        try doc.redo(scope: .session("a"), time: 2)
        #expect(doc.changeCount == 1 && doc.hasUnsavedChanges)
    }

    @Test func anExplicitGroupCountsOnce() throws {
        let doc = Document(text: "0123")
        let um = doc.undoManager
        um.beginUndoGrouping(session: "a")
        try doc.apply(ins(doc, "x", at: 0), session: "a", time: 0)
        try doc.apply(del(doc, 2, 3), session: "a", options: .init(newGroup: true), time: 0)
        try doc.apply(ins(doc, "y", at: 4), session: "a", options: .init(actionName: "Y"), time: 0)
        try um.endUndoGrouping(session: "a")
        #expect(doc.changeCount == 1)
        try doc.undo(scope: .session("a"), time: 1)
        #expect(doc.changeCount == 0 && doc.text == "0123")
    }

    @Test func changesWithoutAGroupCountEach() throws {
        let doc = Document()
        try doc.apply(ins(doc, "a", at: 0), session: "a", options: .init(undoable: false), time: 0)
        try doc.apply(ins(doc, "b", at: 1), session: "a", options: .init(undoable: false), time: 0)
        doc.undoManager.disableUndoRegistration()
        try doc.apply(ins(doc, "c", at: 2), session: "a", time: 0)
        #expect(doc.changeCount == 3)
        // A change that changes nothing is no change.
        try doc.apply(.identity(length: 3), session: "a", time: 0)
        #expect(doc.changeCount == 3)
    }

    @Test func otherSessionsGroupsCountApart() throws {
        let doc = Document(text: "__")
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        try doc.apply(ins(doc, "b", at: 3), session: "b", time: 0.1)
        try doc.apply(ins(doc, "c", at: 1), session: "a", time: 0.2)   // joins a's typing group
        #expect(doc.changeCount == 2)
        try doc.undo(scope: .session("a"), time: 1)
        try doc.undo(scope: .session("b"), time: 1)
        #expect(doc.changeCount == 0 && doc.text == "__")
    }

    @Test func snapshotAndReplayKeepTheCount() throws {
        let doc = Document(text: "start")
        var events: [DocumentEvent] = []
        doc.journal = { events.append($0) }
        let um = doc.undoManager
        try doc.apply(ins(doc, "a", at: 5), session: "a", time: 0)
        let data = try JSONEncoder().encode(doc.snapshot())
        events = []
        try doc.apply(ins(doc, "b", at: 6), session: "a", time: 0.1)             // coalesces
        um.beginUndoGrouping(session: "b")
        try doc.apply(ins(doc, "x", at: 0), session: "b", time: 0.2)
        try doc.apply(ins(doc, "y", at: 1), session: "b", time: 0.3)
        try doc.apply(ins(doc, "z", at: 0), session: nil, options: .init(undoable: false), time: 0.4)
        try doc.undo(scope: .session("a"), time: 1)
        try um.endUndoGrouping(session: "b")
        try doc.redo(scope: .document, time: 2)
        #expect(doc.changeCount == 3)
        let restored = try Document(snapshot: JSONDecoder().decode(DocumentSnapshot.self, from: data))
        for event in events { try restored.replay(event) }
        #expect(restored.text == doc.text)
        #expect(restored.changeCount == doc.changeCount)
    }
}

/// NSDocument's rule and per-scope counts (issue 26 item 7).
@Suite struct ChangeCountScopeTests {
    /// Save, undo past it, change anew: the arithmetic says 0, NSDocument says 2, and no
    /// undo brings it under 1 before the next save.
    @Test func aSavePointOutOfReachNeverLooksClean() throws {
        let doc = Document()
        try doc.apply(ins(doc, "v0 one", at: 0), session: "ada", time: 0)
        doc.updateChangeCount(.cleared)
        try doc.undo(scope: .session("ada"), time: 1)
        #expect(doc.changeCount == -1)
        try doc.apply(ins(doc, "v0 two", at: 0), session: "ada", options: .init(newGroup: true), time: 2)
        #expect(doc.changeCount == 2 && doc.changeCount(.session("ada")) == 2)
        try doc.undo(scope: .session("ada"), time: 3)
        #expect(doc.changeCount == 1)
        try doc.redo(scope: .session("ada"), time: 4)
        #expect(doc.changeCount == 2)
        doc.updateChangeCount(.cleared)
        #expect(doc.changeCount == 0 && doc.changeCounts == ChangeCounts())
        try doc.undo(scope: .session("ada"), time: 5)
        #expect(doc.changeCount == -1)
    }

    /// Each context counts its own groups' steps, whoever asked; the document counts all.
    @Test func eachContextCountsItsOwnGroups() throws {
        let doc = Document()
        try doc.apply(ins(doc, "a", at: 0), session: "ada", time: 0)
        try doc.apply(ins(doc, "b", at: 1), session: "bob", time: 1)
        try doc.apply(ins(doc, "c", at: 2), session: nil, time: 2)
        #expect(counts(doc) == [1, 1, 3])
        // Bob's document-scope undo takes the anonymous group, then Bob's own, then Ada's.
        for _ in 0..<3 { try doc.perform(UndoRequest(.undo, scope: .document, requester: "bob", time: 3)) }
        #expect(counts(doc) == [0, 0, 0])
        #expect(doc.changeCount(.session("carol")) == 0)
    }

    func counts(_ doc: Document) -> [Int] {
        [doc.changeCount(.session("ada")), doc.changeCount(.session("bob")), doc.changeCount(.document)]
    }

    @Test func countsOfEveryScopeSurviveSnapshotsAndReplay() throws {
        let doc = Document()
        let start = doc.snapshot()
        var events: [DocumentEvent] = []
        doc.journal = { events.append($0) }
        try doc.apply(ins(doc, "a", at: 0), session: "ada", time: 0)
        doc.updateChangeCount(.cleared)
        try doc.undo(scope: .session("ada"), time: 1)
        try doc.apply(ins(doc, "b", at: 0), session: "ada", options: .init(newGroup: true), time: 2)
        try doc.apply(ins(doc, "c", at: 0), session: "bob", time: 3)
        let replayed = try Document(snapshot: start)
        for e in events { try replayed.replay(e) }
        let binary = try Document(snapshot: DocumentSnapshot(binary: doc.snapshot().binary()))
        let json = try Document(snapshot: JSONDecoder().decode(DocumentSnapshot.self, from: JSONEncoder().encode(doc.snapshot())))
        for other in [replayed, binary, json] { #expect(other.changeCounts == doc.changeCounts) }
        #expect(doc.changeCounts.document == ChangeCounter(count: 3, savePointLost: true))
    }
}
