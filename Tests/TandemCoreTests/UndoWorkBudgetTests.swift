import Testing
@testable import TandemCore

/// An undo's mapping is bounded as a stale edit's transform is (`Document.maxRebaseWork`):
/// an old group of many splices under many later changes is refused, the menus do not map it
/// to decide what they offer, and within the budget it undoes as before.
@Suite struct UndoWorkBudgetTests {
    /// A text of 4,000 units, a group of 1,000 splices by "paster", then `later` keystrokes by "other".
    static func document(later: Int) throws -> Document {
        let doc = Document(text: String(repeating: "a", count: 4000))
        try doc.apply(RebaseTests.manySplices(1000, length: 4000), session: "paster", options: .init(actionName: "Replace All", newGroup: true), time: 0)
        for i in 0..<later { try doc.apply(ins(doc, "b", at: 0), session: "other", options: .init(newGroup: true), time: Double(i + 1)) }
        return doc
    }

    @Test func anUndoPastTheBudgetIsRefusedAndChangesNothing() throws {
        let doc = try Self.document(later: 2000)
        #expect(doc.undoManager.mappingWork(0) > Document.maxRebaseWork)
        let revision = doc.revision, text = doc.text
        #expect(throws: DocumentError.undoTooLarge(group: Int(doc.undoManager.groups[0].id), changes: 2000, limit: Document.maxRebaseWork)) {
            try doc.undo(scope: .session("paster"), time: 1e6)
        }
        #expect(doc.revision == revision && doc.text == text)
        // The menu still names it, without mapping it: its undo says why it cannot be done.
        #expect(doc.undoManager.canUndo(.session("paster")))
        #expect(doc.undoManager.undoActionName(.session("paster")) == "Replace All")
        // Another session's newer, small groups undo as ever.
        try doc.undo(scope: .session("other"), time: 1e6)
        #expect(doc.text.count == text.count - 1)
    }

    @Test func anUndoWithinTheBudgetIsMappedAndDone() throws {
        let doc = try Self.document(later: 1000)
        #expect(doc.undoManager.mappingWork(0) <= Document.maxRebaseWork)
        try doc.undo(scope: .session("paster"), time: 1e6)
        #expect(doc.text == String(repeating: "b", count: 1000) + String(repeating: "a", count: 4000))
    }

    @Test func aRefusedUndoIsReplayedToTheSameEnd() throws {
        let doc = try Self.document(later: 2000)
        var events: [DocumentEvent] = []
        doc.journal = { events.append($0) }
        // An open group of the paster's closed by the undo on its way to the refusal.
        doc.undoManager.beginUndoGrouping(session: "paster")
        #expect(throws: DocumentError.self) { try doc.undo(scope: .session("paster"), time: 1e6) }
        #expect(doc.undoManager.groupingLevel(.session("paster")) == 0)
        #expect(events.contains { if case .revert = $0 { true } else { false } })
    }
}
