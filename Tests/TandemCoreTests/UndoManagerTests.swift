import Testing
@testable import TandemCore

@Suite struct UndoManagerTests {
    @Test func typingCoalescesUntilAPause() throws {
        let doc = Document()
        for (i, ch) in "hello".enumerated() {
            try doc.apply(ins(doc, String(ch), at: i), session: "a", time: Double(i) * 0.1)
        }
        try doc.apply(ins(doc, "!", at: 5), session: "a", time: 5)   // after a pause
        let history = doc.undoManager.history(.session("a"))
        #expect(history.undoStack.count == 2)
        #expect(history.undoMenuItemTitle == "Undo Typing")
        try doc.undo(scope: .session("a"), time: 6)
        #expect(doc.text == "hello")
        try doc.undo(scope: .session("a"), time: 6)
        #expect(doc.text == "")
        #expect(doc.undoManager.redoMenuItemTitle(.session("a")) == "Redo Typing")
    }

    @Test func backspaceRunsCoalesceAndJumpsSplit() throws {
        let doc = Document(text: "abcdef")
        try doc.apply(del(doc, 5, 6), session: "a", time: 0)
        try doc.apply(del(doc, 4, 5), session: "a", time: 0.1)
        try doc.apply(del(doc, 3, 4), session: "a", time: 0.2)
        try doc.apply(del(doc, 0, 1), session: "a", time: 0.3)      // jump
        try doc.apply(ins(doc, "x", at: 0), session: "a", time: 0.4) // other kind
        #expect(doc.undoManager.history(.session("a")).undoStack.count == 3)
        try doc.undo(scope: .session("a"), time: 1)
        try doc.undo(scope: .session("a"), time: 1)
        #expect(doc.text == "abc")
        try doc.undo(scope: .session("a"), time: 1)
        #expect(doc.text == "abcdef")
    }

    @Test func foreignChangeInsideTheRunBreaksIt() throws {
        let doc = Document()
        try doc.apply(ins(doc, "ab", at: 0), session: "a", time: 0)
        try doc.apply(ins(doc, "X", at: 1), session: "b", time: 0.1)  // inside a's run
        try doc.apply(ins(doc, "c", at: 3), session: "a", time: 0.2)
        #expect(doc.text == "aXbc")
        #expect(doc.undoManager.history(.session("a")).undoStack.count == 2)
        try doc.undo(scope: .session("a"), time: 1)
        #expect(doc.text == "aXb")
        try doc.undo(scope: .session("a"), time: 1)
        #expect(doc.text == "X")
    }

    @Test func foreignChangeOutsideTheRunKeepsIt() throws {
        let doc = Document(text: "zz")
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        try doc.apply(ins(doc, "X", at: 3), session: "b", time: 0.1)
        try doc.apply(ins(doc, "b", at: 1), session: "a", time: 0.2)
        #expect(doc.undoManager.history(.session("a")).undoStack.count == 1)
        try doc.undo(scope: .session("a"), time: 1)
        #expect(doc.text == "zzX")
    }

    @Test func newGroupAndActionNameSplit() throws {
        let doc = Document()
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        try doc.apply(ins(doc, "b", at: 1), session: "a", options: .init(newGroup: true), time: 0)
        try doc.apply(ins(doc, "c", at: 2), session: "a", options: .init(actionName: "Paste"), time: 0)
        try doc.apply(ins(doc, "d", at: 3), session: "a", time: 0)
        let stack = doc.undoManager.history(.session("a")).undoStack.map(\.actionName)
        #expect(stack == ["Typing", "Typing", "Paste", "Typing"])
    }

    @Test func undoWithAGroupOpenClosesItFirst() throws {
        let doc = Document()
        let um = doc.undoManager
        #expect(um.beginUndoGrouping(session: "a") == 1)
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        try doc.apply(ins(doc, "b", at: 1), session: "a", time: 10)
        try doc.undo(scope: .session("a"), time: 11)
        #expect(um.groupingLevel(.session("a")) == 0)
        #expect(doc.text == "")
    }

    @Test func endingAGroupThatIsNotOpenIsAnError() {
        let doc = Document()
        #expect(throws: DocumentError.noOpenGroup) { try doc.undoManager.endUndoGrouping(session: "a") }
        #expect(DocumentError.noOpenGroup.message == "no undo group is open")
    }

    @Test func nestedGroupsUndoAsOneAndOuterNameWins() throws {
        let doc = Document()
        let um = doc.undoManager
        um.beginUndoGrouping(session: "a")
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        #expect(um.beginUndoGrouping(session: "a") == 2)
        um.setActionName("Inner", scope: .session("a"))
        try doc.apply(ins(doc, "b", at: 1), session: "a", time: 0)
        #expect(throws: DocumentError.groupOpen(level: 2)) { try doc.undo(scope: .session("a"), time: 0) }
        try um.endUndoGrouping(session: "a")
        #expect(um.undoActionName(.session("a")) == "Inner")
        um.setActionName("Outer", scope: .session("a"))
        um.beginUndoGrouping(session: "a")
        um.setActionName("Inner again", scope: .session("a"))
        try um.endUndoGrouping(session: "a")
        try um.endUndoGrouping(session: "a")
        #expect(um.undoActionName(.session("a")) == "Outer")
        #expect(um.history(.session("a")).undoStack.count == 1)
        try doc.undo(scope: .session("a"), time: 1)
        #expect(doc.text == "")
        #expect(um.redoMenuItemTitle(.session("a")) == "Redo Outer")
    }

    @Test func undoNestedGroupRefusesAnOpenGroupWithChanges() throws {
        let doc = Document()
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        doc.undoManager.beginUndoGrouping(session: "a")
        try doc.undoNestedGroup(scope: .session("a"), time: 1)        // open group is empty
        #expect(doc.text == "")
        try doc.apply(ins(doc, "b", at: 0), session: "a", time: 2)
        #expect(throws: DocumentError.groupOpen(level: 1)) { try doc.undoNestedGroup(scope: .session("a"), time: 3) }
    }

    @Test func levelsExceededDropsTheOldest() throws {
        let doc = Document(configuration: .init(levelsOfUndo: 3))
        for i in 0..<5 { try doc.apply(ins(doc, "\(i)", at: i), session: "a", options: .init(newGroup: true), time: 0) }
        #expect(doc.undoManager.history(.session("a")).undoStack.count == 3)
        for _ in 0..<3 { try doc.undo(scope: .session("a"), time: 1) }
        #expect(doc.text == "01")
        #expect(throws: DocumentError.nothingToUndo) { try doc.undo(scope: .session("a"), time: 1) }
        doc.undoManager.setLevelsOfUndo(1, scope: .session("b"))
        for i in 0..<3 { try doc.apply(ins(doc, "b", at: i), session: "b", options: .init(newGroup: true), time: 0) }
        #expect(doc.undoManager.history(.session("b")).undoStack.count == 1)
        #expect(doc.undoManager.levelsOfUndo(.session("b")) == 1)
    }

    @Test func registrationDisabledRegistersNothing() throws {
        let doc = Document()
        let um = doc.undoManager
        um.disableUndoRegistration()
        um.disableUndoRegistration()
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        try um.enableUndoRegistration()
        #expect(!um.isUndoRegistrationEnabled)
        try um.enableUndoRegistration()
        #expect(um.isUndoRegistrationEnabled)
        try doc.apply(ins(doc, "b", at: 1), session: "a", options: .init(undoable: false), time: 0)
        #expect(!um.canUndo(.session("a")))
        #expect(try doc.changes(since: 0).map(\.group) == [-1, -1])
    }

    @Test func enablingWithoutADisableIsAnError() throws {
        let doc = Document()
        var events: [DocumentEvent] = []
        doc.journal = { events.append($0) }
        #expect(throws: DocumentError.undoRegistrationNotDisabled) { try doc.undoManager.enableUndoRegistration() }
        doc.undoManager.disableUndoRegistration()
        try doc.undoManager.enableUndoRegistration()
        #expect(throws: DocumentError.undoRegistrationNotDisabled) { try doc.undoManager.enableUndoRegistration() }
        #expect(doc.undoManager.isUndoRegistrationEnabled)
        #expect(events == [.disableUndoRegistration, .enableUndoRegistration])
        #expect(DocumentError.undoRegistrationNotDisabled.code == "undo_registration_not_disabled")
    }

    @Test func removeAllActionsReenablesRegistration() throws {
        for clearDocumentScope in [false, true] {
            let doc = Document()
            let um = doc.undoManager
            um.disableUndoRegistration()
            um.disableUndoRegistration()
            if clearDocumentScope { um.removeAllActions(.document) } else { um.removeAllActions() }
            #expect(um.isUndoRegistrationEnabled)
            try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
            #expect(um.canUndo(.session("a")))
            #expect(throws: DocumentError.undoRegistrationNotDisabled) { try um.enableUndoRegistration() }
        }
        // A session's context is not the manager: its registration state stays.
        let doc = Document()
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        doc.undoManager.disableUndoRegistration()
        doc.undoManager.removeAllActions(.session("a"))
        #expect(!doc.undoManager.isUndoRegistrationEnabled)
    }

    @Test func groupsByEventOffNeedsAnOpenGroup() throws {
        let doc = Document()
        doc.undoManager.groupsByEvent = false
        #expect(throws: DocumentError.noOpenGroup) { try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0) }
        doc.undoManager.beginUndoGrouping(session: "a")
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        try doc.undoManager.endUndoGrouping(session: "a")
        #expect(doc.undoManager.canUndo(.session("a")))
    }

    @Test func undoRedoCyclesForeverAndNewEditClearsOnlyOwnRedo() throws {
        let doc = Document()
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        try doc.apply(ins(doc, "b", at: 1), session: "b", time: 0)
        for _ in 0..<5 {
            try doc.undo(scope: .session("a"), time: 1)
            #expect(doc.text == "b")
            try doc.redo(scope: .session("a"), time: 1)
            #expect(doc.text == "ab")
        }
        try doc.undo(scope: .session("a"), time: 1)
        try doc.undo(scope: .session("b"), time: 1)
        try doc.apply(ins(doc, "c", at: 0), session: "b", time: 2)
        #expect(doc.undoManager.canRedo(.session("a")))
        #expect(!doc.undoManager.canRedo(.session("b")))
        let kinds = try doc.changes(since: 2).map(\.kind)
        #expect(kinds.prefix(2) == [.undo, .redo])
    }

    @Test func removeAllActionsByScopeAndTarget() throws {
        let doc = Document()
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        try doc.apply(ins(doc, "b", at: 1), session: "b", time: 0)
        try doc.apply(ins(doc, "c", at: 2), session: nil, time: 0)
        doc.undoManager.removeAllActions(withTarget: "a")
        #expect(!doc.undoManager.canUndo(.session("a")))
        #expect(doc.undoManager.canUndo(.session("b")))
        doc.undoManager.removeAllActions(.session("b"))
        #expect(!doc.undoManager.canUndo(.session("b")))
        #expect(doc.undoManager.canUndo(.document))
        doc.undoManager.removeAllActions()
        #expect(!doc.undoManager.canUndo(.document))
    }

    @Test func removeAllActionsForAnUnknownSessionJournalsNothing() throws {
        let doc = Document()
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        var events: [DocumentEvent] = []
        doc.journal = { events.append($0) }
        doc.undoManager.removeAllActions(withTarget: "stranger")
        doc.undoManager.removeAllActions(.session("stranger"))
        #expect(events.isEmpty)
        #expect(doc.undoManager.history(.session("stranger")).undoStack.isEmpty)
        #expect(doc.undoManager.canUndo(.session("a")))
        doc.undoManager.removeAllActions(withTarget: "a")
        #expect(events == [.removeAllActionsWithTarget("a")])
        #expect(!doc.undoManager.canUndo(.session("a")))
    }

    @Test func discardableFlags() throws {
        let doc = Document()
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        doc.undoManager.setActionIsDiscardable(true, scope: .session("a"))
        #expect(doc.undoManager.undoActionIsDiscardable(.session("a")))
        try doc.undo(scope: .session("a"), time: 1)
        #expect(doc.undoManager.redoActionIsDiscardable(.session("a")))
    }

    @Test func discardableSetBeforeTheOpenGroupsFirstChangeMarksThatGroup() throws {
        let doc = Document()
        let um = doc.undoManager
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        um.beginUndoGrouping(session: "a")
        um.setActionIsDiscardable(true, scope: .session("a"))
        #expect(!um.undoActionIsDiscardable(.session("a")))         // the closed group is untouched
        try doc.apply(ins(doc, "b", at: 1), session: "a", time: 1)
        try um.endUndoGrouping(session: "a")
        #expect(um.undoActionIsDiscardable(.session("a")))
        try doc.undo(scope: .session("a"), time: 2)
        #expect(!um.undoActionIsDiscardable(.session("a")))
        // The flag belongs to that open group only.
        um.beginUndoGrouping(session: "a")
        try doc.apply(ins(doc, "c", at: 1), session: "a", time: 3)
        try um.endUndoGrouping(session: "a")
        #expect(!um.undoActionIsDiscardable(.session("a")))
    }

    @Test func discardableAtDocumentScopeMarksTheAnonymousOpenGroup() throws {
        let doc = Document()
        let um = doc.undoManager
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        um.beginUndoGrouping(session: nil)
        um.setActionIsDiscardable(true, scope: .document)
        try doc.apply(ins(doc, "b", at: 1), session: nil, time: 1)
        try um.endUndoGrouping(session: nil)
        #expect(um.undoActionIsDiscardable(.document))
        #expect(!um.undoActionIsDiscardable(.session("a")))
        // With no group open the document scope marks the latest group by anyone.
        try doc.apply(ins(doc, "c", at: 2), session: "a", time: 2)
        um.setActionIsDiscardable(true, scope: .document)
        #expect(um.undoActionIsDiscardable(.session("a")))
    }

    @Test func notificationsInOrder() throws {
        let doc = Document()
        let um = doc.undoManager
        final class Box { var names: [UndoNotification.Name] = []; var undoing: [Bool] = [] }
        let box = Box()
        let token = um.addObserver { note in
            box.names.append(note.name)
            box.undoing.append(um.isUndoing)
        }
        um.beginUndoGrouping(session: "a")
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        try um.endUndoGrouping(session: "a")
        try doc.undo(scope: .session("a"), time: 0)
        try doc.redo(scope: .session("a"), time: 0)
        #expect(box.names == [.didOpenUndoGroup, .checkpoint, .checkpoint, .willCloseUndoGroup, .didCloseUndoGroup,
                              .willUndo, .didUndo, .willRedo, .didRedo])
        // Around the undo (at will and did), it is not undoing yet, or any more.
        #expect(box.undoing.allSatisfy { !$0 })
        um.removeObserver(token)
        try doc.undo(scope: .session("a"), time: 0)
        #expect(box.names.count == 9)
    }

    @Test func isUndoingWhileTheUndoIsAppliedAndReported() throws {
        let doc = Document()
        let um = doc.undoManager
        final class Box { var seen: [String] = [] }
        let box = Box()
        doc.journal = { event in
            switch event {
            case .revert(let r): box.seen.append("\(r.kind.rawValue) undoing=\(um.isUndoing) redoing=\(um.isRedoing)")
            default: break
            }
        }
        let token = um.addObserver { note in
            if note.name == .didUndo || note.name == .didRedo {
                box.seen.append("\(note.name.rawValue) undoing=\(um.isUndoing) redoing=\(um.isRedoing)")
            }
        }
        try doc.apply(ins(doc, "a", at: 0), session: "a", time: 0)
        try doc.undo(scope: .session("a"), time: 1)
        try doc.redo(scope: .session("a"), time: 2)
        #expect(box.seen == ["undo undoing=true redoing=false", "didUndo undoing=false redoing=false",
                             "redo undoing=false redoing=true", "didRedo undoing=false redoing=false"])
        #expect(!um.isUndoing && !um.isRedoing)
        um.removeObserver(token)
    }

    @Test func menuTitles() {
        let um = Document().undoManager
        #expect(um.undoMenuItemTitle(.document) == "Undo")
        #expect(um.redoMenuItemTitle(.document) == "Redo")
        #expect(um.undoMenuTitle(forUndoActionName: "Bold") == "Undo Bold")
        #expect(um.redoMenuTitle(forUndoActionName: "") == "Redo")
    }
}
