import Foundation
import Testing
@testable import TandemCore

/// Issue 37's smaller truths, in the core: the cap in force, discardable groups and the change
/// count, a session's own registration switch, and automatic groups' notifications.
@Suite struct UndoSmallerTruthsTests {
    // MARK: 1. levelsOfUndo in force

    @Test func aSessionWithNoCapOfItsOwnReportsTheDocumentsCap() throws {
        let doc = Document()
        let um = doc.undoManager
        um.setLevelsOfUndo(3, scope: .document)
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        #expect(um.history(.session("a")).levelsOfUndo == 3)
        #expect(um.history(.session("a")).ownLevelsOfUndo == 0)
        um.setLevelsOfUndo(5, scope: .session("a"))
        #expect(um.history(.session("a")).levelsOfUndo == 5 && um.history(.session("a")).ownLevelsOfUndo == 5)
        #expect(um.history(.document).levelsOfUndo == 3 && um.history(.document).ownLevelsOfUndo == 3)
        // A session that never edited is capped by the document's too.
        #expect(um.history(.session("nobody")).levelsOfUndo == 3)
    }

    // MARK: 2. discardable groups and the change count

    @Test func aDiscardableEditCountsNowhereThroughUndoAndRedo() throws {
        let doc = Document()
        try doc.apply(ins(doc, "look", at: 0), session: "a", options: .init(discardable: true), time: 0)
        #expect(doc.changeCount == 0 && doc.changeCount(.session("a")) == 0)
        #expect(doc.changeCounts.document.discarded == 1)
        #expect(doc.undoManager.undoActionIsDiscardable(.session("a")))
        try doc.undo(scope: .session("a"), time: 1)
        #expect(doc.changeCount == 0 && doc.changeCounts.document.discarded == 0)
        #expect(doc.undoManager.redoActionIsDiscardable(.session("a")))
        try doc.redo(scope: .session("a"), time: 2)
        #expect(doc.changeCount == 0 && doc.changeCounts.document.discarded == 1)
    }

    @Test func markingACountedGroupDiscardableTakesItsStepBackAndUnmarkingCountsItAgain() throws {
        let doc = Document()
        let um = doc.undoManager
        try doc.apply(ins(doc, "a", at: 0), session: "a", options: .init(actionName: "A"), time: 0)
        try doc.apply(ins(doc, "b", at: 1), session: "a", options: .init(actionName: "B"), time: 0)
        #expect(doc.changeCount == 2)
        um.setActionIsDiscardable(true, scope: .session("a"))
        #expect(doc.changeCount == 1 && doc.changeCount(.session("a")) == 1)
        // Marking it again changes nothing: only a flip recounts.
        um.setActionIsDiscardable(true, scope: .session("a"))
        #expect(doc.changeCount == 1)
        try doc.undo(scope: .session("a"), time: 1)
        #expect(doc.changeCount == 1)
        try doc.redo(scope: .session("a"), time: 2)
        um.setActionIsDiscardable(false, scope: .session("a"))
        #expect(doc.changeCount == 2 && doc.changeCounts.document.discarded == 0)
    }

    @Test func aDiscardableEditStartsItsOwnGroupThatTypingDoesNotJoin() throws {
        let doc = Document()
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        try doc.apply(ins(doc, "b", at: 1), session: "a", options: .init(discardable: true), time: 0.1)
        try doc.apply(ins(doc, "c", at: 2), session: "a", time: 0.2)
        let stack = doc.undoManager.history(.session("a")).undoStack
        #expect(stack.count == 3)
        #expect(doc.changeCount == 2)
    }

    @Test func aDiscardableEditInsideAnOpenGroupMarksTheGroupAndTakesBackItsCount() throws {
        let doc = Document()
        let um = doc.undoManager
        um.beginUndoGrouping(session: "a")
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        #expect(doc.changeCount == 1)
        try doc.apply(ins(doc, "b", at: 1), session: "a", options: .init(discardable: true), time: 0)
        #expect(doc.changeCount == 0)
        try um.endUndoGrouping(session: "a")
        #expect(um.undoActionIsDiscardable(.session("a")))
        try doc.undo(scope: .session("a"), time: 1)
        #expect(doc.changeCount == 0 && doc.text == "")
    }

    @Test func discardableStepsReplayAndSnapshotIdentically() throws {
        let doc = Document()
        var events: [DocumentEvent] = []
        doc.journal = { events.append($0) }
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        doc.undoManager.setActionIsDiscardable(true, scope: .session("a"))
        try doc.apply(ins(doc, "b", at: 1), session: "b", options: .init(discardable: true), time: 1)
        try doc.apply(ins(doc, "c", at: 2), session: "b", time: 2)
        try doc.undo(scope: .session("b"), time: 3)
        let replayed = Document()
        for event in events { try replayed.replay(event) }
        #expect(replayed.changeCounts == doc.changeCounts)
        #expect(doc.changeCounts.document.discarded == 2)
        let fromBinary = try Document(snapshot: DocumentSnapshot(binary: doc.snapshot().binary()))
        #expect(fromBinary.changeCounts == doc.changeCounts)
        let json = try JSONEncoder().encode(doc.snapshot())
        let fromJSON = try Document(snapshot: JSONDecoder().decode(DocumentSnapshot.self, from: json))
        #expect(fromJSON.changeCounts == doc.changeCounts)
    }

    // MARK: 3. a session's own registration

    @Test func aSessionsDisabledRegistrationNestsAndTouchesNobodyElse() throws {
        let doc = Document()
        let um = doc.undoManager
        #expect(um.disableUndoRegistration(session: "a") == 1)
        #expect(um.disableUndoRegistration(session: "a") == 2)
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        try doc.apply(ins(doc, "b", at: 1), session: "b", time: 0)
        #expect(!um.canUndo(.session("a")) && um.canUndo(.session("b")))
        #expect(!um.history(.session("a")).undoRegistrationEnabled && um.history(.session("b")).undoRegistrationEnabled)
        #expect(try um.enableUndoRegistration(session: "a") == 1)
        try doc.apply(ins(doc, "c", at: 2), session: "a", time: 1)
        #expect(!um.canUndo(.session("a")))
        #expect(try um.enableUndoRegistration(session: "a") == 0)
        #expect(throws: DocumentError.undoRegistrationNotDisabled) { try um.enableUndoRegistration(session: "a") }
        #expect(throws: DocumentError.undoRegistrationNotDisabled) { try um.enableUndoRegistration(session: "never") }
        try doc.apply(ins(doc, "d", at: 3), session: "a", time: 2)
        #expect(um.canUndo(.session("a")))
    }

    @Test func aSessionsDisabledRegistrationSurvivesSnapshotsAndReplayAndEndsWithTheSession() throws {
        let doc = Document()
        var events: [DocumentEvent] = []
        doc.journal = { events.append($0) }
        doc.undoManager.disableUndoRegistration(session: "a")
        doc.undoManager.disableUndoRegistration(session: "a")
        let replayed = Document()
        for event in events { try replayed.replay(event) }
        let fromBinary = try Document(snapshot: DocumentSnapshot(binary: doc.snapshot().binary()))
        let fromJSON = try Document(snapshot: JSONDecoder().decode(DocumentSnapshot.self, from: JSONEncoder().encode(doc.snapshot())))
        for copy in [replayed, fromBinary, fromJSON] {
            #expect(copy.undoManager.sessionRegistrationDisabledLevel("a") == 2)
            try copy.apply(ins(copy, "x", at: 0), session: "a", time: 0)
            #expect(!copy.undoManager.canUndo(.session("a")))
        }
        doc.undoManager.removeAllActions(withTarget: "a")
        #expect(doc.undoManager.isUndoRegistrationEnabled(.session("a")))
    }

    @Test func removeAllActionsReenablesEverySessionsRegistration() throws {
        let doc = Document()
        doc.undoManager.disableUndoRegistration(session: "a")
        doc.undoManager.removeAllActions(.session("a"))
        #expect(!doc.undoManager.isUndoRegistrationEnabled(.session("a")))
        doc.undoManager.removeAllActions(.document)
        #expect(doc.undoManager.isUndoRegistrationEnabled(.session("a")))
    }

    // MARK: 4. automatic groups' notifications

    @Test func anAutomaticGroupOpensAndClosesAroundItsEventAndTypingThatJoinsItOpensNone() throws {
        let doc = Document()
        let um = doc.undoManager
        final class Box { var names: [UndoNotification.Name] = [] }
        let box = Box()
        let token = um.addObserver { box.names.append($0.name) }
        defer { um.removeObserver(token) }
        let first = try #require(try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0))
        #expect(box.names == [.didOpenUndoGroup, .checkpoint, .willCloseUndoGroup, .didCloseUndoGroup])
        #expect(first.opensAutomaticGroup)
        box.names = []
        let joined = try #require(try doc.apply(ins(doc, "b", at: 1), session: "a", time: 0.1))
        #expect(box.names == [.checkpoint] && !joined.opensAutomaticGroup)
        box.names = []
        let unregistered = try #require(try doc.apply(ins(doc, "c", at: 2), session: "a", options: .init(undoable: false), time: 0.2))
        #expect(box.names.isEmpty && !unregistered.opensAutomaticGroup)
        um.beginUndoGrouping(session: "a")
        let inside = try #require(try doc.apply(ins(doc, "d", at: 3), session: "a", time: 0.3))
        #expect(!inside.opensAutomaticGroup)
        // The log says the same when the changes are read back.
        #expect(try doc.changes(since: 0).map(\.opensAutomaticGroup) == [true, false, false, false])
    }

    // MARK: 5. the menu answers for a range as the ranged requests act

    @Test func anAnonymousCallerAskingAboutARangeIsOfferedWhatTheRangedRequestsDo() {
        func can(_ selection: Selection?, _ range: Range<Int>?, session: Bool) -> [Bool] {
            let a = EditActionAvailability(selection: selection, range: range, hasSession: session, acceptsChanges: true,
                                           secure: false, hasText: true, pasteboardHasStrings: true)
            return [a.cut, a.copy, a.paste, a.delete, a.select, a.selectAll]
        }
        //                                                   cut    copy   paste  delete select selectAll
        #expect(can(nil, 1..<3, session: false) ==          [true,  true,  true,  true,  false, false])
        #expect(can(nil, 2..<2, session: false) ==          [false, false, true,  false, false, false])
        // A range wins over the selection, as in the requests.
        #expect(can(Selection(anchor: 0, head: 3), 2..<2, session: true) == [false, false, true, false, true, true])
        #expect(can(nil, 0..<1, session: true) ==           [true,  true,  true,  true,  true,  true])
    }
}
