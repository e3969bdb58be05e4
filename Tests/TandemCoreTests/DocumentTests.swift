import Testing
@testable import TandemCore

func ins(_ doc: Document, _ text: String, at p: Int) throws -> TextOperation {
    try TextOperation.insert(text, at: p, length: doc.length)
}

func del(_ doc: Document, _ from: Int, _ to: Int) throws -> TextOperation {
    try TextOperation.delete(from: from, to: to, length: doc.length)
}

@Suite struct DocumentTests {
    @Test func startingTextIsNotUndoable() throws {
        let doc = Document(text: "hello")
        #expect(doc.revision == 0)
        #expect(!doc.undoManager.canUndo(.document))
        #expect(throws: DocumentError.nothingToUndo) { try doc.undo(scope: .document, time: 0) }
    }

    @Test func applyLogsAChange() throws {
        let doc = Document(text: "hello")
        let change = try #require(try doc.apply(ins(doc, " world", at: 5), session: "a", time: 1))
        #expect(doc.text == "hello world")
        #expect(change.revision == 1 && doc.revision == 1)
        #expect(change.kind == .edit && change.session == "a")
        #expect(change.range == 5..<11)
        #expect(change.actionName == "Typing")
        #expect(doc.selection(for: "a") == Selection(caret: 11))
        let log = try doc.changes(since: 0)
        #expect(log.count == 1)
        #expect(log[0].operation == change.operation)
        #expect(try doc.changes(since: 1).isEmpty)
        #expect(throws: DocumentError.revisionInFuture(base: 2, current: 1)) { try doc.changes(since: 2) }
    }

    @Test func nothingChangedMakesNoRevision() throws {
        let doc = Document(text: "abc")
        #expect(try doc.apply(.identity(length: 3), session: "a", time: 0) == nil)
        #expect(try doc.apply(TextOperation.replace(from: 1, to: 2, with: "b", length: 3), session: "a", time: 0) == nil)
        #expect(doc.revision == 0)
        #expect(!doc.undoManager.canUndo(.session("a")))
    }

    @Test func staleBaseIsTransformed() throws {
        let doc = Document(text: "abc")
        try doc.apply(ins(doc, "X", at: 0), session: "a", time: 0)        // Xabc
        let stale = try TextOperation.insert("Y", at: 2, length: 3)        // abYc at base 0
        let change = try #require(try doc.apply(stale, base: 0, session: "b", time: 0))
        #expect(doc.text == "XabYc")
        #expect(change.operation.baseLength == 4)
        #expect(throws: DocumentError.revisionInFuture(base: 9, current: 2)) {
            try doc.apply(stale, base: 9, session: "b", time: 0)
        }
        #expect(throws: DocumentError.invalidOperation(.lengthMismatch(expected: 3, actual: 4))) {
            try doc.apply(stale, base: 1, session: "b", time: 0)
        }
    }

    @Test func invalidOperationsChangeNothing() throws {
        let doc = Document(text: "a😀b")
        #expect(throws: DocumentError.invalidOperation(.splitsSurrogatePair(at: 2))) {
            try doc.apply(TextOperation.insert("x", at: 2, length: 4), session: nil, time: 0)
        }
        #expect(throws: DocumentError.invalidOperation(.lengthMismatch(expected: 3, actual: 4))) {
            try doc.apply(TextOperation.insert("x", at: 0, length: 3), session: nil, time: 0)
        }
        #expect(doc.text == "a😀b" && doc.revision == 0)
    }

    @Test func trimLogKeepsLaterGroupsUndoable() throws {
        let doc = Document()
        for i in 0..<6 {
            try doc.apply(ins(doc, "\(i)", at: doc.length), session: "a", options: .init(newGroup: true), time: Double(i))
        }
        doc.trimLog(through: 3)
        #expect(doc.firstAvailableRevision == 4)
        #expect(throws: DocumentError.revisionTrimmed(base: 2, firstAvailable: 4)) { try doc.changes(since: 2) }
        #expect(try doc.changes(since: 3).map(\.revision) == [4, 5, 6])
        #expect(throws: DocumentError.revisionTrimmed(base: 1, firstAvailable: 4)) {
            try doc.apply(TextOperation.insert("z", at: 0, length: 1), base: 1, session: "b", time: 9)
        }
        #expect(doc.undoManager.history(.session("a")).undoStack.count == 3)
        try doc.undo(scope: .session("a"), time: 10)
        try doc.undo(scope: .session("a"), time: 10)
        try doc.undo(scope: .session("a"), time: 10)
        #expect(doc.text == "012")
        #expect(throws: DocumentError.nothingToUndo) { try doc.undo(scope: .session("a"), time: 10) }
    }

    @Test func changeCountFollowsUIDocument() throws {
        let doc = Document()
        try doc.apply(ins(doc, "a", at: 0), session: "a", options: .init(newGroup: true), time: 0)
        try doc.apply(ins(doc, "b", at: 1), session: "a", options: .init(newGroup: true), time: 0)
        #expect(doc.changeCount == 2 && doc.hasUnsavedChanges)
        try doc.undo(scope: .session("a"), time: 1)
        #expect(doc.changeCount == 1)
        doc.updateChangeCount(.cleared)
        #expect(doc.changeCount == 0 && !doc.hasUnsavedChanges)
        try doc.redo(scope: .session("a"), time: 1)
        #expect(doc.changeCount == 1)
        try doc.undo(scope: .session("a"), time: 1)
        #expect(doc.changeCount == 0)
    }

    @Test func editingDisabledRefusesChanges() throws {
        let doc = Document(text: "x")
        doc.isEditingDisabled = true
        #expect(throws: DocumentError.editingDisabled) { try doc.apply(ins(doc, "a", at: 0), session: nil, time: 0) }
        doc.isEditingDisabled = false
        try doc.apply(ins(doc, "a", at: 0), session: nil, time: 0)
        #expect(doc.text == "ax")
    }

    @Test func selectionAtAnOlderBaseIsMappedThroughLaterChanges() throws {
        let doc = Document(text: "hello world")
        try doc.apply(.insert(">> ", at: 0, length: 11), session: "b", time: 0)
        try doc.apply(.delete(from: 9, to: 14, length: 14), session: "b", time: 1)  // "world"
        try doc.setSelection(Selection(anchor: 0, head: 5), base: 0, for: "a")
        #expect(doc.selection(for: "a") == Selection(anchor: 3, head: 8))
        try doc.setSelection(Selection(anchor: 6, head: 11), base: 0, for: "a")
        #expect(doc.selection(for: "a") == Selection(caret: 9))
        #expect(throws: DocumentError.self) { try doc.setSelection(Selection(caret: 12), base: 0, for: "a") }
        #expect(throws: DocumentError.self) { try doc.setSelection(Selection(caret: 0), base: 3, for: "a") }
        #expect(doc.selection(for: "a") == Selection(caret: 9))
    }

    @Test func selectionsFollowEveryonesChanges() throws {
        let doc = Document(text: "hello world")
        try doc.setSelection(Selection(anchor: 6, head: 11), for: "b")
        try doc.apply(ins(doc, ">> ", at: 0), session: "a", time: 0)
        #expect(doc.selection(for: "b") == Selection(anchor: 9, head: 14))
        #expect(doc.selection(for: "a") == Selection(caret: 3))
        try doc.apply(del(doc, 3, 9), session: "a", options: .init(newGroup: true), time: 0)
        #expect(doc.selection(for: "b") == Selection(anchor: 3, head: 8))
        let undo = try doc.undo(scope: .session("a"), time: 1)
        #expect(undo.range == 3..<9)
        #expect(doc.selection(for: "a") == Selection(3..<9))
        #expect(throws: DocumentError.self) { try doc.setSelection(Selection(caret: 99), for: "a") }
        #expect(doc.selections.count == 2)
    }

    /// Other sessions' selections follow a one-splice change by arithmetic (a fast path) and a
    /// many-splice one by walking the log: both must agree with transformPosition everywhere.
    @Test func selectionsMoveAsTransformPositionSays() throws {
        let text = "abcdef"
        var operations: [TextOperation] = []
        for p in 0...6 {
            for d in 0...(6 - p) {
                for inserted in ["", "X", "YZ"] where d > 0 || !inserted.isEmpty {
                    operations.append(try TextOperation.replace(from: p, to: p + d, with: inserted, length: 6))
                }
            }
        }
        operations.append(try TextOperation([.retain(1), .delete(1), .retain(2), .insert("Q"), .retain(2)]))
        operations.append(try TextOperation([.insert("A"), .retain(3), .delete(3), .insert("BC")]))
        var checked = 0
        for op in operations {
            for anchor in 0...6 {
                for head in [0, 3, 6] {
                    let doc = Document(text: text)
                    try doc.setSelection(Selection(anchor: anchor, head: head), for: "b")
                    try doc.setSelection(Selection(caret: 6 - anchor), for: "c")
                    try doc.apply(op, session: "a", time: 0)
                    #expect(doc.selection(for: "b") == Selection(anchor: op.transformPosition(anchor), head: op.transformPosition(head)))
                    #expect(doc.selection(for: "c") == Selection(caret: op.transformPosition(6 - anchor)))
                    checked += 1
                }
            }
        }
        #expect(checked > 1_000)
    }

    @Test func ropeAtAnOlderRevisionUndoesTheChangesSince() throws {
        let doc = Document(text: "hello")
        var texts = [doc.text]
        try doc.apply(ins(doc, " world", at: 5), session: "a", time: 0)
        texts.append(doc.text)
        try doc.apply(del(doc, 0, 1), session: "b", time: 0)
        texts.append(doc.text)
        try doc.apply(TextOperation([.retain(2), .delete(3), .insert("\u{1F600}"), .retain(3), .insert("!"), .retain(2)]), session: "a", time: 0)
        texts.append(doc.text)
        _ = try doc.undo(scope: .session("b"), time: 1)
        texts.append(doc.text)
        for (revision, text) in texts.enumerated() {
            #expect(try doc.rope(atRevision: revision).description == text)
        }
        #expect(doc.text == texts.last)
        #expect(throws: DocumentError.self) { try doc.rope(atRevision: doc.revision + 1) }
        doc.trimLog(through: 2)
        #expect(try doc.rope(atRevision: 2).description == texts[2])
        #expect(throws: DocumentError.self) { try doc.rope(atRevision: 1) }
    }
}
