import Testing
@testable import TandemCore

@Suite struct CollaborativeUndoTests {
    @Test func undoAnInsertAnotherUserPartlyDeleted() throws {
        let doc = Document(text: "[]")
        try doc.apply(ins(doc, "hello", at: 1), session: "a", time: 0)
        try doc.apply(del(doc, 2, 5), session: "b", time: 0)              // "[ho]"
        try doc.undo(scope: .session("a"), time: 1)
        #expect(doc.text == "[]")
        try doc.undo(scope: .session("b"), time: 1)                       // b restores what it deleted
        #expect(doc.text == "[ell]")
    }

    @Test func undoADeleteNextToAnotherUsersInsert() throws {
        let doc = Document(text: "abcdef")
        try doc.apply(del(doc, 2, 4), session: "a", time: 0)              // "abef"
        try doc.apply(ins(doc, "X", at: 2), session: "b", time: 0)        // "abXef"
        let undo = try doc.undo(scope: .session("a"), time: 1)
        #expect(doc.text == "abcdXef")
        #expect(undo.range == 2..<4)
        #expect(undo.kind == .undo && undo.session == "a")
    }

    @Test func undoRemoteEditRedo() throws {
        let doc = Document(text: "bar")
        try doc.apply(ins(doc, "foo", at: 0), session: "a", time: 0)
        try doc.undo(scope: .session("a"), time: 1)
        try doc.apply(ins(doc, "X", at: 3), session: "b", time: 2)
        #expect(doc.text == "barX")
        let redo = try doc.redo(scope: .session("a"), time: 3)
        #expect(doc.text == "foobarX")
        #expect(redo.range == 0..<3 && redo.kind == .redo)
    }

    @Test func sessionUndoNeverTouchesOthersText() throws {
        let doc = Document()
        try doc.apply(ins(doc, "one ", at: 0), session: "a", options: .init(newGroup: true), time: 0)
        try doc.apply(ins(doc, "two ", at: 4), session: "b", options: .init(newGroup: true), time: 0)
        try doc.apply(ins(doc, "three", at: 8), session: "a", options: .init(newGroup: true), time: 0)
        try doc.undo(scope: .session("b"), time: 1)
        #expect(doc.text == "one three")
        try doc.undo(scope: .session("a"), time: 1)
        try doc.undo(scope: .session("a"), time: 1)
        #expect(doc.text == "")
        try doc.redo(scope: .session("b"), time: 1)
        #expect(doc.text == "two ")
    }

    @Test func scopesStayConsistent() throws {
        let doc = Document(text: "-")
        let um = doc.undoManager
        try doc.apply(ins(doc, "a", at: 0), session: "a", options: .init(actionName: "A"), time: 0)
        try doc.apply(ins(doc, "b", at: 2), session: "b", options: .init(actionName: "B"), time: 0)
        #expect(um.undoActionName(.document) == "B")
        try doc.undo(scope: .session("b"), time: 1)
        #expect(um.undoActionName(.document) == "A")            // b's group is not offered again
        #expect(um.redoActionName(.document) == "B")
        try doc.undo(scope: .document, time: 1)
        #expect(doc.text == "-")
        #expect(!um.canUndo(.session("a")))
        #expect(um.history(.document).redoStack.map(\.actionName) == ["B", "A"])
        try doc.redo(scope: .document, time: 2)                 // latest undone first: A
        #expect(doc.text == "a-")
        try doc.redo(scope: .session("b"), time: 2)
        #expect(doc.text == "a-b")
        #expect(!um.canRedo(.document))
    }

    @Test func groupOpenWhileOthersEditMapsItsInverse() throws {
        let doc = Document(text: "0123456789")
        let um = doc.undoManager
        um.beginUndoGrouping(session: "a")
        try doc.apply(ins(doc, "A", at: 5), session: "a", time: 0)
        try doc.apply(ins(doc, "bb", at: 0), session: "b", time: 0)
        try doc.apply(del(doc, 9, 10), session: "a", time: 0)
        try doc.apply(ins(doc, "c", at: 12), session: "b", time: 0)
        try um.endUndoGrouping(session: "a")
        #expect(doc.text == "bb01234A5789c")
        try doc.undo(scope: .session("a"), time: 1)
        #expect(doc.text == "bb0123456789c")
    }

    @Test func undoOfTextOthersDeletedEntirelyUndoesTheNextGroup() throws {
        let doc = Document()
        try doc.apply(ins(doc, "keep", at: 0), session: "a", options: .init(newGroup: true), time: 0)
        try doc.apply(ins(doc, "gone", at: 4), session: "a", options: .init(newGroup: true), time: 0)
        try doc.apply(del(doc, 4, 8), session: "b", time: 0)
        try doc.undo(scope: .session("a"), time: 1)
        #expect(doc.text == "")
        #expect(throws: DocumentError.nothingToUndo) { try doc.undo(scope: .session("a"), time: 1) }
    }
}
