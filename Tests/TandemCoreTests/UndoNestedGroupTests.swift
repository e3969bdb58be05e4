import Foundation
import Testing
@testable import TandemCore

/// undoNestedGroup inside an open group undoes the last closed nested group on its own.
@Suite struct UndoNestedGroupTests {
    @Test func undoesTheLastClosedNestedGroupAndLeavesTheOuterOneOpen() throws {
        let doc = Document()
        let um = doc.undoManager
        um.beginUndoGrouping(session: "a")
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        um.beginUndoGrouping(session: "a")
        try doc.apply(ins(doc, "b", at: 1), session: "a", time: 0)
        try doc.apply(ins(doc, "c", at: 2), session: "a", time: 0)
        try um.endUndoGrouping(session: "a")
        let undo = try doc.undoNestedGroup(scope: .session("a"), time: 1)
        #expect(doc.text == "a")
        #expect(undo.range == 1..<1 && undo.kind == .undo)
        #expect(um.groupingLevel(.session("a")) == 1)
        #expect(doc.changeCount == 1)
        // Its redo waits above the open group: refused while that group holds changes.
        #expect(um.canRedo(.session("a")))
        #expect(throws: DocumentError.groupOpen(level: 1)) { try doc.redo(scope: .session("a"), time: 2) }
        try um.endUndoGrouping(session: "a")
        try doc.redo(scope: .session("a"), time: 2)
        #expect(doc.text == "abc")
        #expect(um.history(.session("a")).undoStack.count == 2)
        try doc.undo(scope: .session("a"), time: 3)
        #expect(doc.text == "a")
        try doc.undo(scope: .session("a"), time: 3)
        #expect(doc.text == "")
        #expect(doc.changeCount == 0)
    }

    /// Opens a group for `session` with "a" in it, nests "b" in a group of its own, closes
    /// that and undoes it with undoNestedGroup: the text is "a", the outer group still open.
    static func undoANestedGroup(in doc: Document, session: SessionID) throws {
        let um = doc.undoManager
        um.beginUndoGrouping(session: session)
        try doc.apply(ins(doc, "a", at: 0), session: session, time: 0)
        um.beginUndoGrouping(session: session)
        try doc.apply(ins(doc, "b", at: 1), session: session, time: 0)
        try um.endUndoGrouping(session: session)
        try doc.undoNestedGroup(scope: .session(session), time: 1)
    }

    @Test func theOpenGroupKeepsGrowingAfterwards() throws {
        let doc = Document()
        let um = doc.undoManager
        try Self.undoANestedGroup(in: doc, session: "a")
        try doc.apply(ins(doc, "d", at: 1), session: "a", time: 2)
        #expect(!um.canRedo(.session("a")))                              // a new change cleared it
        try um.endUndoGrouping(session: "a")
        #expect(um.history(.session("a")).undoStack.count == 1)
        try doc.undo(scope: .session("a"), time: 3)
        #expect(doc.text == "")
    }

    @Test func othersChangesInsideTheNestedGroupStay() throws {
        let doc = Document(text: "XY")
        let um = doc.undoManager
        um.beginUndoGrouping(session: "a")
        try doc.apply(ins(doc, "1", at: 0), session: "a", time: 0)        // 1XY
        um.beginUndoGrouping(session: "a")
        try doc.apply(ins(doc, "2", at: 1), session: "a", time: 0)        // 12XY
        try doc.apply(ins(doc, "b", at: 2), session: "b", time: 0)        // 12bXY
        try doc.apply(ins(doc, "3", at: 3), session: "a", time: 0)        // 12b3XY
        try um.endUndoGrouping(session: "a")
        try doc.undoNestedGroup(scope: .session("a"), time: 1)
        #expect(doc.text == "1bXY")
        try um.endUndoGrouping(session: "a")
        try doc.undo(scope: .session("a"), time: 2)
        #expect(doc.text == "bXY")
        try doc.redo(scope: .session("a"), time: 3)
        #expect(doc.text == "1bXY")
        try doc.redo(scope: .session("a"), time: 3)
        #expect(doc.text == "12b3XY")
    }

    @Test func aChangeAfterTheNestedGroupClosedRefusesIt() throws {
        let doc = Document()
        let um = doc.undoManager
        um.beginUndoGrouping(session: "a")
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        um.beginUndoGrouping(session: "a")
        try doc.apply(ins(doc, "b", at: 1), session: "a", time: 0)
        try um.endUndoGrouping(session: "a")
        try doc.apply(ins(doc, "c", at: 2), session: "a", time: 0)
        #expect(throws: DocumentError.groupOpen(level: 1)) { try doc.undoNestedGroup(scope: .session("a"), time: 1) }
        #expect(doc.text == "abc")
        // An empty nested group is no group to undo either.
        um.beginUndoGrouping(session: "a")
        try um.endUndoGrouping(session: "a")
        #expect(throws: DocumentError.groupOpen(level: 1)) { try doc.undoNestedGroup(scope: .session("a"), time: 1) }
    }

    @Test func deeperNestingUndoesTheWholeLastClosedLevel() throws {
        let doc = Document()
        let um = doc.undoManager
        um.beginUndoGrouping(session: "a")
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        um.beginUndoGrouping(session: "a")
        try doc.apply(ins(doc, "b", at: 1), session: "a", time: 0)
        um.beginUndoGrouping(session: "a")
        try doc.apply(ins(doc, "c", at: 2), session: "a", time: 0)
        try um.endUndoGrouping(session: "a")                            // level 3 closed: "c"
        try um.endUndoGrouping(session: "a")                            // level 2 closed: "bc"
        try doc.undoNestedGroup(scope: .session("a"), time: 1)
        #expect(doc.text == "a")
        #expect(um.groupingLevel(.session("a")) == 1)
    }

    @Test func aNestedGroupHoldingAllTheOpenGroupsChangesIsUndoneWhole() throws {
        let doc = Document(text: "x")
        let um = doc.undoManager
        um.beginUndoGrouping(session: "a")
        um.beginUndoGrouping(session: "a")
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        try um.endUndoGrouping(session: "a")
        try doc.undoNestedGroup(scope: .session("a"), time: 1)
        #expect(doc.text == "x" && doc.changeCount == 0)
        try doc.apply(ins(doc, "b", at: 1), session: "a", time: 2)
        try um.endUndoGrouping(session: "a")
        #expect(um.history(.session("a")).undoStack.count == 1)
        try doc.undo(scope: .session("a"), time: 3)
        #expect(doc.text == "x")
    }

    @Test func replayRebuildsTheSameHistory() throws {
        let doc = Document(text: "XY")
        var events: [DocumentEvent] = []
        doc.journal = { events.append($0) }
        let snapshot = doc.snapshot()
        let um = doc.undoManager
        um.beginUndoGrouping(session: "a")
        try doc.apply(ins(doc, "1", at: 0), session: "a", time: 0)
        um.beginUndoGrouping(session: "a")
        try doc.apply(ins(doc, "2", at: 1), session: "a", time: 0)
        try doc.apply(ins(doc, "b", at: 0), session: "b", time: 0)
        try um.endUndoGrouping(session: "a")
        try doc.undoNestedGroup(scope: .session("a"), time: 1)
        try um.endUndoGrouping(session: "a")

        let restored = try Document(snapshot: snapshot)
        for event in events { try restored.replay(event) }
        #expect(restored.text == doc.text && restored.changeCount == doc.changeCount)
        for scope in [UndoScope.document, .session("a"), .session("b")] {
            #expect(restored.undoManager.history(scope) == um.history(scope))
        }
        #expect(try restored.changes(since: 0).map(\.group) == doc.changes(since: 0).map(\.group))
        while um.canUndo(.session("a")) {
            try doc.undo(scope: .session("a"), time: 2)
            try restored.undo(scope: .session("a"), time: 2)
            #expect(restored.text == doc.text)
        }
        #expect(doc.text == "bXY")
    }

    @Test func aSnapshotTakenInsideNestedGroupsKeepsTheirBoundaries() throws {
        let doc = Document()
        let um = doc.undoManager
        um.beginUndoGrouping(session: "a")
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        um.beginUndoGrouping(session: "a")
        um.setActionIsDiscardable(true, scope: .session("a"))
        try doc.apply(ins(doc, "b", at: 1), session: "a", time: 0)
        let restored = try Document(snapshot: JSONDecoder().decode(DocumentSnapshot.self,
                                                                   from: JSONEncoder().encode(doc.snapshot())))
        for d in [doc, restored] {
            try d.apply(ins(d, "c", at: 2), session: "a", time: 1)
            try d.undoManager.endUndoGrouping(session: "a")
            try d.undoNestedGroup(scope: .session("a"), time: 2)
            #expect(d.text == "a")
            try d.undoManager.endUndoGrouping(session: "a")
            #expect(d.undoManager.undoActionIsDiscardable(.session("a")))
            #expect(d.undoManager.redoActionIsDiscardable(.session("a")))
        }
        #expect(restored.changeCount == doc.changeCount)
    }
}
