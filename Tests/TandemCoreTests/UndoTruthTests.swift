import Foundation
import Testing
@testable import TandemCore

/// Issue 26's scenarios in the core: who an undo is recorded under, partial undo, stable
/// group ids and selective undo. Each also checks that a snapshot (binary and JSON) and a
/// replay of the journal give the same answers.
@Suite struct UndoTruthTests {
    /// A document with its journal recorded from its start.
    final class Recorded {
        let doc: Document
        let start: DocumentSnapshot
        var events: [DocumentEvent] = []

        init(text: String) {
            doc = Document(text: text)
            start = doc.snapshot()
            doc.journal = { [unowned self] in self.events.append($0) }
        }

        /// The replayed document, and the document rebuilt from its binary and JSON snapshots,
        /// each list the same changes and histories as the live one.
        func expectRebuildsAlike(scopes: [UndoScope]) throws {
            let replayed = try Document(snapshot: start)
            for event in events { try replayed.replay(event) }
            let binary = try Document(snapshot: DocumentSnapshot(binary: doc.snapshot().binary()))
            let json = try Document(snapshot: JSONDecoder().decode(DocumentSnapshot.self, from: JSONEncoder().encode(doc.snapshot())))
            for other in [replayed, binary, json] {
                #expect(other.text == doc.text)
                #expect(try describe(other.changes(since: 0)) == describe(doc.changes(since: 0)))
                for scope in scopes { #expect(other.undoManager.history(scope) == doc.undoManager.history(scope)) }
            }
        }

        func describe(_ changes: [Change]) -> [String] {
            changes.map { "\($0.revision) \($0.session ?? "-") \($0.kind) \($0.reverts.map { "\($0.session ?? "-")/\($0.group)" } ?? "") \($0.notReverted)" }
        }
    }

    // MARK: item 3: the requester

    /// Bob's document-scope undo of Ada's change is Bob's change, naming Ada's group.
    @Test func anUndoIsRecordedUnderTheSessionThatAskedAndNamesTheGroupItReverted() throws {
        let r = Recorded(text: "")
        let doc = r.doc
        try doc.apply(ins(doc, "Ada", at: 0), session: "ada", options: .init(actionName: "Name"), time: 0)
        let id = try #require(doc.undoManager.history(.session("ada")).undoStack.last?.id)
        let undo = try doc.perform(UndoRequest(.undo, scope: .document, requester: "bob", time: 1))
        #expect(undo.session == "bob")
        #expect(undo.reverts == RevertedGroup(session: "ada", group: id))
        #expect(doc.text == "")
        // Anonymous stays anonymous; the redo goes back on Ada's stack, with the same id.
        let redo = try doc.redo(scope: .document, time: 2)
        #expect(redo.session == nil && redo.reverts == RevertedGroup(session: "ada", group: id))
        #expect(doc.undoManager.history(.session("ada")).undoStack.map(\.id) == [id])
        let listed = try doc.changes(since: 1)
        #expect(listed.map(\.session) == ["bob", nil])
        #expect(listed.map(\.reverts) == [undo.reverts, redo.reverts])
        #expect(try doc.changes(since: 0)[0].reverts == nil)
        try r.expectRebuildsAlike(scopes: [.document, .session("ada")])
    }

    // MARK: item 4: partial undo

    /// "hello world" as one group, Bob deletes " world": Ada's undo removes "hello" and says
    /// 6 units of the group could not be reverted. A whole undo says partial false.
    @Test func anUndoThatCouldRevertOnlyPartOfItsGroupSaysSo() throws {
        let r = Recorded(text: "")
        let doc = r.doc
        try doc.apply(ins(doc, "hello world", at: 0), session: "ada", options: .init(actionName: "Greet"), time: 0)
        try doc.apply(del(doc, 5, 11), session: "bob", time: 1)
        let undo = try doc.undo(scope: .session("ada"), time: 2)
        #expect(doc.text == "")
        #expect(undo.isPartial && undo.notReverted == 6 && undo.actionName == "Greet")
        #expect(try doc.changes(since: 2).first?.notReverted == 6)
        // The redo restores all the undo removed: whole.
        let redo = try doc.redo(scope: .session("ada"), time: 3)
        #expect(doc.text == "hello" && !redo.isPartial)
        // Bob's insertion inside Ada's text stays, and her whole group is reverted: not partial.
        try doc.apply(ins(doc, "!", at: 2), session: "bob", time: 4)
        let whole = try doc.undo(scope: .session("ada"), time: 5)
        #expect(doc.text == "!" && !whole.isPartial && whole.notReverted == 0)
        try r.expectRebuildsAlike(scopes: [.session("ada"), .session("bob")])
    }

    /// Loss counted while a group's inverse sat in a snapshot is still counted after it.
    @Test func partialUndoSurvivesASnapshotTakenInBetween() throws {
        let doc = Document()
        try doc.apply(ins(doc, "abcdef", at: 0), session: "ada", time: 0)
        try doc.apply(ins(doc, "X", at: 0), session: "bob", time: 1)
        try doc.apply(ins(doc, "ghi", at: 7), session: "ada", options: .init(newGroup: true), time: 2)
        try doc.apply(del(doc, 1, 3), session: "bob", time: 3)   // "ab" of Ada's first group
        try doc.undo(scope: .session("ada"), time: 4)             // "ghi": whole
        let restored = try Document(snapshot: DocumentSnapshot(binary: doc.snapshot().binary()))
        for d in [doc, restored] {
            let undo = try d.undo(scope: .session("ada"), time: 5)
            #expect(d.text == "X" && undo.notReverted == 2)
        }
    }

    // MARK: item 6: ids and selective undo

    /// Ids are the first revision of the edit that made the group and survive undo and redo.
    @Test func groupIdsAreStableThroughUndoAndRedo() throws {
        let doc = Document()
        for (i, word) in ["one ", "two ", "three "].enumerated() {
            try doc.apply(ins(doc, word, at: doc.length), session: "ada", options: .init(actionName: word), time: Double(i))
        }
        let um = doc.undoManager
        #expect(um.history(.session("ada")).undoStack.map(\.id) == [1, 2, 3])
        try doc.undo(scope: .session("ada"), time: 5)
        #expect(um.history(.session("ada")).redoStack.map(\.id) == [3])
        try doc.redo(scope: .session("ada"), time: 6)
        #expect(um.history(.session("ada")).undoStack.map(\.id) == [1, 2, 3])
    }

    /// Ada undoes her older group alone: what came after it, hers and Bob's, stays; the
    /// group goes to her redo stack and a redo brings it back.
    @Test func aSelectiveUndoRevertsOneOlderGroupAndRedoBringsItBack() throws {
        let r = Recorded(text: "")
        let doc = r.doc
        let um = doc.undoManager
        try doc.apply(ins(doc, "alpha ", at: 0), session: "ada", options: .init(actionName: "Alpha"), time: 0)
        try doc.apply(ins(doc, "beta ", at: doc.length), session: "ada", options: .init(actionName: "Beta"), time: 1)
        try doc.apply(ins(doc, "[bob]", at: 0), session: "bob", time: 2)
        try doc.apply(ins(doc, "gamma", at: doc.length), session: "ada", options: .init(actionName: "Gamma"), time: 3)
        #expect(doc.text == "[bob]alpha beta gamma")
        let undo = try doc.undo(group: 1, session: "ada", time: 4)
        #expect(doc.text == "[bob]beta gamma")
        #expect(undo.actionName == "Alpha" && undo.reverts == RevertedGroup(session: "ada", group: 1) && !undo.isPartial)
        #expect(um.history(.session("ada")).undoStack.map(\.actionName) == ["Beta", "Gamma"])
        #expect(um.history(.session("ada")).redoStack.map(\.id) == [1])
        #expect(um.undoActionName(.session("ada")) == "Gamma" && um.redoActionName(.session("ada")) == "Alpha")
        // The rest of the stack undoes as it would have (Gamma first); once Gamma's redo is
        // taken, Alpha is the next redo, and then the next undo.
        let steps: [(redo: Bool, text: String)] = [
            (false, "[bob]beta "), (true, "[bob]beta gamma"), (true, "[bob]alpha beta gamma"), (false, "[bob]beta gamma"),
        ]
        for (i, step) in steps.enumerated() {
            let time = Double(5 + i)
            if step.redo { try doc.redo(scope: .session("ada"), time: time) } else { try doc.undo(scope: .session("ada"), time: time) }
            #expect(doc.text == step.text)
        }
        try r.expectRebuildsAlike(scopes: [.document, .session("ada"), .session("bob")])
    }

    /// A later own group that edited the selected group's text keeps its effect: only what is
    /// left of the selected group is removed, and the undo says what it could not revert.
    @Test func aSelectiveUndoMapsThroughTheCallersOwnLaterGroups() throws {
        let doc = Document()
        try doc.apply(ins(doc, "abcdef", at: 0), session: "ada", options: .init(actionName: "Type"), time: 0)
        try doc.apply(del(doc, 4, 6), session: "ada", options: .init(actionName: "Cut"), time: 1)
        try doc.apply(ins(doc, "XY", at: 2), session: "ada", options: .init(actionName: "Insert"), time: 2)
        #expect(doc.text == "abXYcd")
        let undo = try doc.undo(group: 1, session: "ada", time: 3)
        #expect(doc.text == "XY" && undo.notReverted == 2)
        // Undoing "Cut" now restores "ef" where it was cut, between what is left.
        try doc.undo(scope: .session("ada"), time: 4)   // Insert
        #expect(doc.text == "")
        try doc.undo(scope: .session("ada"), time: 5)   // Cut
        #expect(doc.text == "ef")
    }

    @Test func aSelectiveUndoTakesOnlyAGroupOfTheCallersOwnUndoStack() throws {
        let doc = Document()
        try doc.apply(ins(doc, "a", at: 0), session: "ada", options: .init(actionName: "A"), time: 0)
        try doc.apply(ins(doc, "b", at: 1), session: "bob", options: .init(actionName: "B"), time: 1)
        try doc.apply(ins(doc, "c", at: 2), session: "ada", options: .init(actionName: "C"), time: 2)
        try doc.undo(scope: .session("ada"), time: 3)
        let before = doc.snapshot().binary()
        var events: [DocumentEvent] = []
        doc.journal = { events.append($0) }
        #expect(throws: DocumentError.notYourGroup(id: 2)) { try doc.undo(group: 2, session: "ada", time: 4) }
        #expect(throws: DocumentError.groupAlreadyUndone(id: 3)) { try doc.undo(group: 3, session: "ada", time: 4) }
        #expect(throws: DocumentError.groupNotFound(id: 99)) { try doc.undo(group: 99, session: "ada", time: 4) }
        #expect(throws: DocumentError.notYourGroup(id: 1)) { try doc.undo(group: 1, session: "carol", time: 4) }
        #expect(events.isEmpty && doc.snapshot().binary() == before)
    }

    /// A selected group others erased entirely is dropped, and the undo is nothingToUndo:
    /// no other group is undone in its place.
    @Test func aSelectiveUndoOfAnErasedGroupUndoesNothingElse() throws {
        let r = Recorded(text: "")
        let doc = r.doc
        try doc.apply(ins(doc, "old", at: 0), session: "ada", options: .init(actionName: "Old"), time: 0)
        try doc.apply(ins(doc, " new", at: 3), session: "ada", options: .init(actionName: "New"), time: 1)
        try doc.apply(del(doc, 0, 3), session: "bob", time: 2)
        #expect(throws: DocumentError.nothingToUndo) { try doc.undo(group: 1, session: "ada", time: 3) }
        #expect(doc.text == " new")
        #expect(doc.undoManager.history(.session("ada")).undoStack.map(\.id) == [2])
        try r.expectRebuildsAlike(scopes: [.session("ada")])
    }

    /// undoNestedGroup over a selective-undo journal: requests of every kind round-trip.
    @Test func undoRequestsOfEveryKindReplayAlike() throws {
        let r = Recorded(text: "")
        let doc = r.doc
        let um = doc.undoManager
        try UndoNestedGroupTests.undoANestedGroup(in: doc, session: "ada")
        #expect(doc.text == "a")
        try um.endUndoGrouping(session: "ada")
        try doc.apply(ins(doc, "z", at: 1), session: "ada", options: .init(newGroup: true), time: 3)
        try doc.undo(group: 1, session: "ada", time: 4)
        #expect(doc.text == "z")
        try doc.perform(UndoRequest(.redo, scope: .document, requester: "bob", time: 5))
        #expect(doc.text == "az")
        try r.expectRebuildsAlike(scopes: [.document, .session("ada")])
    }
}
