import Foundation
import Testing
@testable import TandemCore

/// Issue 37: text deleted by someone and restored by an undo is the same text, so its author can
/// still undo it; and the document scope offers what its next undo reverts, as a session does.
/// Each scenario also checks that a snapshot (binary and JSON) and a replay give the same.
@Suite struct UndoOwnershipTests {
    /// Ada types " AdaOld", Grace types " GraceNew" after it, Ada deletes " GraceNew" and undoes
    /// her delete: the text is back, and it is Grace's to undo.
    static func adaRestoresGracesText() throws -> UndoTruthTests.Recorded {
        let r = UndoTruthTests.Recorded(text: "")
        let doc = r.doc
        try doc.apply(ins(doc, " AdaOld", at: 0), session: "ada", options: .init(actionName: "AdaOld"), time: 0)
        try doc.apply(ins(doc, " GraceNew", at: 7), session: "grace", options: .init(actionName: "GraceNew"), time: 1)
        try doc.apply(del(doc, 7, 16), session: "ada", options: .init(actionName: "Delete"), time: 2)
        #expect(doc.text == " AdaOld")
        try doc.undo(scope: .session("ada"), time: 3)
        #expect(doc.text == " AdaOld GraceNew")
        return r
    }

    @Test func textDeletedAndRestoredByAnotherUndoStaysItsAuthorsToUndo() throws {
        let r = try Self.adaRestoresGracesText()
        let um = r.doc.undoManager
        #expect(um.canUndo(.session("grace")) && um.undoMenuItemTitle(.session("grace")) == "Undo GraceNew")
        try r.expectRebuildsAlike(scopes: [.document, .session("ada"), .session("grace")])
        let undo = try r.doc.undo(scope: .session("grace"), time: 4)
        #expect(r.doc.text == " AdaOld")
        #expect(undo.actionName == "GraceNew" && !undo.isPartial && undo.notReverted == 0 && undo.skipped.isEmpty)
        try r.expectRebuildsAlike(scopes: [.document, .session("ada"), .session("grace")])
    }

    /// The same, restored from a snapshot taken between the restore and Grace's undo.
    @Test func theRestoredTextStaysItsAuthorsAcrossASnapshot() throws {
        let r = try Self.adaRestoresGracesText()
        let binary = try Document(snapshot: DocumentSnapshot(binary: r.doc.snapshot().binary()))
        let json = try Document(snapshot: JSONDecoder().decode(DocumentSnapshot.self, from: JSONEncoder().encode(r.doc.snapshot())))
        for doc in [binary, json] {
            let undo = try doc.undo(scope: .session("grace"), time: 4)
            #expect(doc.text == " AdaOld" && undo.actionName == "GraceNew" && !undo.isPartial)
        }
    }

    /// The document scope's next undo reverts Grace's group (newest) instead of dropping it.
    @Test func theDocumentScopeNoLongerDropsTheRestoredGroup() throws {
        let r = try Self.adaRestoresGracesText()
        let doc = r.doc
        // Ada's undo put her delete on her redo stack; Grace's group is the newest undoable one.
        #expect(doc.undoManager.undoActionName(.document) == "GraceNew")
        let undo = try doc.undo(scope: .document, time: 4)
        #expect(undo.actionName == "GraceNew" && undo.skipped.isEmpty && doc.text == " AdaOld")
    }

    /// Bob deleted "New" for good before Ada's delete-and-undo: Grace's undo takes out what is
    /// left, " Grace", and says 3 units could not be reverted.
    @Test func aRestoreBringsBackOnlyWhatItRestoredAndTheUndoSaysWhatIsMissing() throws {
        let r = UndoTruthTests.Recorded(text: "")
        let doc = r.doc
        try doc.apply(ins(doc, " GraceNew", at: 0), session: "grace", options: .init(actionName: "GraceNew"), time: 0)
        try doc.apply(del(doc, 6, 9), session: "bob", time: 1)
        try doc.apply(ins(doc, "!", at: 6), session: "bob", time: 2)
        #expect(doc.text == " Grace!")
        try doc.apply(del(doc, 0, 7), session: "ada", options: .init(actionName: "Clear"), time: 3)
        try doc.undo(scope: .session("ada"), time: 4)
        #expect(doc.text == " Grace!")
        let undo = try doc.undo(scope: .session("grace"), time: 5)
        #expect(doc.text == "!" && undo.isPartial && undo.notReverted == 3)
        try r.expectRebuildsAlike(scopes: [.document, .session("ada"), .session("bob"), .session("grace")])
    }

    /// Ada's redo deletes the text again (Grace's group has nothing left to undo), her next undo
    /// restores it again (Grace's group is revertible again).
    @Test func redoAndUndoAgainOfTheDeleteTakeAndGiveBackOwnership() throws {
        let r = try Self.adaRestoresGracesText()
        let doc = r.doc, um = doc.undoManager
        try doc.redo(scope: .session("ada"), time: 4)
        #expect(doc.text == " AdaOld" && !um.canUndo(.session("grace")))
        try doc.undo(scope: .session("ada"), time: 5)
        #expect(doc.text == " AdaOld GraceNew" && um.undoActionName(.session("grace")) == "GraceNew")
        try doc.undo(scope: .session("grace"), time: 6)
        #expect(doc.text == " AdaOld")
        // Grace's redo puts her text back, and Ada's group is still hers: undoing it takes out
        // " AdaOld" only.
        try doc.redo(scope: .session("grace"), time: 7)
        #expect(doc.text == " AdaOld GraceNew")
        try r.expectRebuildsAlike(scopes: [.document, .session("ada"), .session("grace")])
    }

    /// Grace's text deleted by Ada and restored by Bob's document-scope undo of Ada's delete:
    /// any undo restores the identity, whoever asked for it. A selective undo finds it too.
    @Test func aDocumentScopeUndoByAThirdPersonRestoresOwnershipToo() throws {
        let r = UndoTruthTests.Recorded(text: "")
        let doc = r.doc
        try doc.apply(ins(doc, "one ", at: 0), session: "grace", options: .init(actionName: "One"), time: 0)
        try doc.apply(ins(doc, "two", at: 4), session: "grace", options: .init(actionName: "Two"), time: 1)
        try doc.apply(del(doc, 0, 4), session: "ada", options: .init(actionName: "Cut"), time: 2)
        try doc.perform(UndoRequest(.undo, scope: .document, requester: "bob", time: 3))
        #expect(doc.text == "one two")
        let undo = try doc.undo(group: 1, session: "grace", time: 4)
        #expect(undo.actionName == "One" && !undo.isPartial && doc.text == "two")
        try r.expectRebuildsAlike(scopes: [.document, .session("ada"), .session("grace")])
    }

    /// The newest group was wiped by an edit that registers nothing: the document scope offers
    /// the older group at once, its undo reverts it, and once nothing is left it says so twice.
    @Test func theDocumentScopeSkipsAWipedNewestGroupAsASessionDoes() throws {
        let r = UndoTruthTests.Recorded(text: "")
        let doc = r.doc, um = doc.undoManager
        try doc.apply(ins(doc, "AdaOld ", at: 0), session: "ada", options: .init(actionName: "AdaOld"), time: 0)
        try doc.apply(ins(doc, "GraceNew", at: 7), session: "grace", options: .init(actionName: "GraceNew"), time: 1)
        try doc.apply(del(doc, 7, 15), session: "bob", options: .init(undoable: false), time: 2)
        #expect(um.canUndo(.document) && um.undoMenuItemTitle(.document) == "Undo AdaOld")
        let undo = try doc.undo(scope: .document, time: 3)
        #expect(undo.actionName == "AdaOld" && doc.text == "")
        #expect(!um.canUndo(.document) && um.undoMenuItemTitle(.document) == "Undo")
        #expect(throws: DocumentError.nothingToUndo) { try doc.undo(scope: .document, time: 4) }
        #expect(!um.canUndo(.document))
        #expect(throws: DocumentError.nothingToUndo) { try doc.undo(scope: .document, time: 5) }
        try r.expectRebuildsAlike(scopes: [.document, .session("ada"), .session("grace")])
    }

    /// A context with a group open is its owner's alone: the document scope neither reverts nor
    /// lists it, so its stack's last entry is never a group the undo will not touch.
    @Test func theDocumentScopesStackListsOnlyWhatItCanUndo() throws {
        let doc = Document()
        let um = doc.undoManager
        try doc.apply(ins(doc, "Grace Line", at: 0), session: "grace", options: .init(actionName: "Grace Line"), time: 0)
        um.beginUndoGrouping(session: "ada")
        try doc.apply(ins(doc, " Outer", at: 10), session: "ada", options: .init(actionName: "Outer"), time: 1)
        let history = um.history(.document)
        #expect(history.undoStack.map(\.actionName) == ["Grace Line"] && history.undoMenuItemTitle == "Undo Grace Line")
        try um.endUndoGrouping(session: "ada")
        #expect(um.history(.document).undoStack.map(\.actionName) == ["Grace Line", "Outer"])
    }
}
