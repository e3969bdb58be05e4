import Testing
@testable import TandemCore

/// Boundaries of the undo rules: exact limits, inclusive edges, other scopes.
@Suite struct UndoEdgeCaseTests {
    @Test func selectionAfterARedoCoversTheRedoneRange() throws {
        let doc = Document(text: "hello world")
        try doc.apply(TextOperation.replace(from: 6, to: 11, with: "there", length: 11), session: "a", time: 0)
        try doc.undo(scope: .session("a"), time: 1)
        try doc.apply(ins(doc, ">> ", at: 0), session: "b", time: 2)
        try doc.setSelection(Selection(caret: 0), for: "a")
        let redo = try doc.redo(scope: .session("a"), time: 3)
        #expect(doc.text == ">> hello there")
        #expect(redo.range == 9..<14)
        #expect(doc.selection(for: "a") == Selection(9..<14))
        #expect(doc.selection(for: "b") == Selection(caret: 3))
    }

    /// levelsOfUndo bounds each session's own stack: another session's typing never pushes
    /// out my groups (the document's value is every session's default).
    @Test func documentLevelsCapEachSessionsOwnStack() throws {
        let doc = Document(configuration: .init(levelsOfUndo: 2))
        try doc.apply(ins(doc, "A", at: 0), session: "ada", options: .init(newGroup: true), time: 0)
        for i in 0..<5 {
            try doc.apply(ins(doc, "\(i)", at: doc.length), session: "bob", options: .init(newGroup: true), time: Double(1 + i))
        }
        let um = doc.undoManager
        #expect(um.history(.session("ada")).undoStack.map(\.revision) == [1])
        #expect(um.history(.session("bob")).undoStack.map(\.revision) == [5, 6])
        um.setLevelsOfUndo(4, scope: .session("ada"))
        for i in 0..<5 {
            try doc.apply(ins(doc, "a", at: 0), session: "ada", options: .init(newGroup: true), time: Double(10 + i))
        }
        #expect(um.history(.session("ada")).undoStack.count == 4)
        #expect(um.history(.session("bob")).undoStack.count == 2)
        while um.canUndo(.session("ada")) { try doc.undo(scope: .session("ada"), time: 20) }
        #expect(doc.text == "aA01234")   // "A" and the first "a" were past her 4 levels
    }

    /// "Old" then "New" by Ada; Bob deletes all of "New": the title, canUndo and the undo all
    /// speak of "Old", and with only an erased group left nothing is offered.
    @Test func theTitleNamesWhatTheNextUndoReverts() throws {
        let doc = Document()
        let um = doc.undoManager
        try doc.apply(ins(doc, "Old", at: 0), session: "ada", options: .init(actionName: "Old"), time: 0)
        try doc.apply(ins(doc, "New", at: 3), session: "ada", options: .init(actionName: "New"), time: 1)
        try doc.apply(del(doc, 3, 6), session: "bob", time: 2)
        #expect(um.undoActionName(.session("ada")) == "Old")
        #expect(um.undoMenuItemTitle(.session("ada")) == "Undo Old")
        #expect(um.canUndo(.session("ada")))
        let undo = try doc.undo(scope: .session("ada"), time: 3)
        #expect(undo.actionName == "Old" && doc.text == "")
        #expect(undo.skipped == [SkippedGroup(actionName: "New", revision: 2)])
        #expect(!um.canUndo(.session("ada")) && um.undoActionName(.session("ada")) == "")
        // Redo offers "Old" back; the erased "New" was dropped, never offered.
        #expect(um.redoActionName(.session("ada")) == "Old")

        let alone = Document()
        try alone.apply(ins(alone, "Gone", at: 0), session: "ada", time: 0)
        try alone.apply(del(alone, 0, 4), session: "bob", time: 1)
        #expect(!alone.undoManager.canUndo(.session("ada")))
        #expect(throws: DocumentError.nothingToUndo) { try alone.undo(scope: .session("ada"), time: 2) }
    }

    @Test func trimLogDropsRedoEntriesOnlyUpToTheTrim() throws {
        let doc = Document()
        for i in 0..<4 {
            try doc.apply(ins(doc, "\(i)", at: i), session: "a", options: .init(newGroup: true), time: Double(i))
        }
        try doc.undo(scope: .session("a"), time: 5)          // revision 5 undoes "3"
        try doc.undo(scope: .session("a"), time: 5)          // revision 6 undoes "2"
        try doc.apply(ins(doc, "z", at: 0), session: "b", time: 6)
        try doc.undo(scope: .session("a"), time: 7)          // revision 8 undoes "1"
        #expect(doc.text == "z0")
        doc.trimLog(through: 6)
        let history = doc.undoManager.history(.session("a"))
        #expect(history.redoStack.map(\.revision) == [8])
        #expect(history.undoStack.isEmpty)                   // "0" was made at revision 1
        try doc.redo(scope: .session("a"), time: 8)
        #expect(doc.text == "z01")
        #expect(throws: DocumentError.nothingToRedo) { try doc.redo(scope: .session("a"), time: 8) }
        try doc.undo(scope: .session("a"), time: 9)
        #expect(doc.text == "z0")
    }

    @Test func aPauseExactlyAtTheLimitStartsANewGroup() throws {
        let doc = Document(configuration: .init(typingPause: 0.5))
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 1)
        try doc.apply(ins(doc, "b", at: 1), session: "a", time: 1.25)   // under the pause: joins
        try doc.apply(ins(doc, "c", at: 2), session: "a", time: 1.75)   // exactly the pause: new group
        #expect(doc.undoManager.history(.session("a")).undoStack.count == 2)
        try doc.undo(scope: .session("a"), time: 3)
        #expect(doc.text == "ab")
    }

    @Test(arguments: [0, 2]) func aForeignChangeAtEitherEdgeOfTheRunClosesIt(edge: Int) throws {
        let doc = Document()
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        try doc.apply(ins(doc, "b", at: 1), session: "a", time: 0.1)     // run covers 0...2
        try doc.apply(ins(doc, "X", at: edge), session: "b", time: 0.2)
        let caret = edge == 0 ? 3 : 2
        try doc.apply(ins(doc, "c", at: caret), session: "a", time: 0.3)
        #expect(doc.undoManager.history(.session("a")).undoStack.count == 2)
        try doc.undo(scope: .session("a"), time: 1)
        #expect(doc.text == (edge == 0 ? "Xab" : "abX"))
        // Just past the run's end the run goes on.
        let other = Document(text: "__")
        try other.apply(ins(other, "ab", at: 0), session: "a", time: 0)
        try other.apply(ins(other, "X", at: 3), session: "b", time: 0.1)
        try other.apply(ins(other, "c", at: 2), session: "a", time: 0.2)
        #expect(other.text == "abc_X_")
        #expect(other.undoManager.history(.session("a")).undoStack.count == 1)
    }

    /// A group still open is its owner's: the document scope neither closes it nor reverts
    /// it, and undoes the latest closed group of anyone else.
    @Test func theDocumentScopeLeavesAnOpenGroupAlone() throws {
        let doc = Document(text: "x")
        let um = doc.undoManager
        #expect(um.beginUndoGrouping(session: "ada") == 1)
        try doc.apply(ins(doc, "a", at: 0), session: "ada", time: 0)
        try doc.apply(ins(doc, "b", at: 2), session: "bob", time: 5)
        try doc.apply(ins(doc, "c", at: 3), session: "ada", time: 6)
        #expect(um.undoActionName(.document) == "Typing")
        let undo = try doc.undo(scope: .document, time: 7)
        #expect(undo.reverts?.session == "bob" && undo.session == nil && doc.text == "axc")
        #expect(um.groupingLevel(.session("ada")) == 1)
        #expect(!um.canUndo(.document))
        #expect(throws: DocumentError.nothingToUndo) { try doc.undo(scope: .document, time: 8) }
        // Closed by its owner, it is anyone's to undo.
        try um.endUndoGrouping(session: "ada")
        #expect(um.canUndo(.document))
        try doc.undo(scope: .document, time: 9)
        #expect(doc.text == "x")
    }

    @Test func aNewChangeClearsOnlyItsOwnSessionsRedo() throws {
        let doc = Document()
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        try doc.undo(scope: .session("a"), time: 1)
        try doc.apply(ins(doc, "b", at: 0), session: "b", time: 2)
        // b's change cleared b's redo stack only: the document scope still offers a's undo.
        #expect(doc.undoManager.canRedo(.document))
        #expect(doc.undoManager.redoActionName(.document) == "Typing")
        try doc.redo(scope: .document, time: 3)
        #expect(doc.text == "ab")
    }

    @Test func failedUndosThatChangedStateReplayTheSame() throws {
        let doc = Document(text: "[]")
        let snapshot = doc.snapshot()
        var events: [DocumentEvent] = []
        doc.journal = { events.append($0) }
        // An undo closes the empty open group, then finds nothing to undo.
        doc.undoManager.beginUndoGrouping(session: "a")
        #expect(throws: DocumentError.nothingToUndo) { try doc.undo(scope: .session("a"), time: 0) }
        #expect(doc.undoManager.groupingLevel(.session("a")) == 0)
        // An undo drops a group others deleted entirely, then finds nothing more.
        try doc.apply(ins(doc, "abc", at: 1), session: "a", time: 1)
        try doc.apply(del(doc, 0, 5), session: "b", time: 2)
        #expect(throws: DocumentError.nothingToUndo) { try doc.undo(scope: .session("a"), time: 3) }
        #expect(!doc.undoManager.canUndo(.session("a")))
        // Nothing at all to undo changes nothing and journals nothing.
        let count = events.count
        #expect(throws: DocumentError.nothingToUndo) { try doc.undo(scope: .session("c"), time: 4) }
        #expect(events.count == count)

        let restored = try Document(snapshot: snapshot)
        for event in events { try restored.replay(event) }
        #expect(restored.text == doc.text)
        for scope in [UndoScope.document, .session("a"), .session("b")] {
            #expect(restored.undoManager.history(scope) == doc.undoManager.history(scope))
        }
    }
}
