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
