import Testing
@testable import TandemCore

/// What a history entry says its group did (`UndoHistory.Preview`): read from the group's
/// changes, its own backspaces over its own typing taken back.
@Suite struct HistoryPreviewTests {
    static func preview(_ doc: Document, redo: Bool = false) -> UndoHistory.Preview? {
        let h = doc.undoManager.history(.session("a"))
        return (redo ? h.redoStack : h.undoStack).last?.preview
    }

    @Test func typingWithAFixedTypoSaysWhatWasLeft() throws {
        let doc = Document(text: "Dear Sir,\n")
        _ = doc.undoManager.beginUndoGrouping(session: "a")
        for (i, ch) in "Thanks fro".enumerated() { try doc.apply(ins(doc, String(ch), at: 10 + i), session: "a", time: 0) }
        try doc.apply(del(doc, 18, 20), session: "a", time: 0)
        for (i, ch) in "rom".enumerated() { try doc.apply(ins(doc, String(ch), at: 18 + i), session: "a", time: 0) }
        _ = try doc.undoManager.endUndoGrouping(session: "a")
        #expect(Self.preview(doc) == .init(position: 10, inserted: "Thanks from", deleted: "", insertedCount: 11, deletedCount: 0))
    }

    /// Typing somewhere else within the group, then a backspace there: it takes back that typing.
    @Test func aBackspaceAfterTypingElsewhereTakesBackThatTyping() throws {
        let doc = Document(text: "0123456789")
        _ = doc.undoManager.beginUndoGrouping(session: "a")
        try doc.apply(ins(doc, "ab", at: 0), session: "a", time: 0)
        try doc.apply(del(doc, 5, 7), session: "a", time: 0)          // deletes "34"
        try doc.apply(ins(doc, "XY", at: 10), session: "a", time: 0)
        try doc.apply(del(doc, 11, 12), session: "a", time: 0)        // backspace over "Y"
        _ = try doc.undoManager.endUndoGrouping(session: "a")
        #expect(doc.text == "ab01256789X")
        #expect(Self.preview(doc) == .init(position: 0, inserted: "abX", deleted: "34", insertedCount: 3, deletedCount: 2))
    }

    @Test func aRedoEntrySaysWhatRedoingDoesAndLongTextIsCut() throws {
        let doc = Document(text: "")
        try doc.apply(ins(doc, String(repeating: "é", count: 39) + "😀" + "tail", at: 0), session: "a", options: .init(newGroup: true), time: 0)
        let p = try #require(Self.preview(doc))
        // 39 units, then half a surrogate pair would be the 40th: it stops before.
        #expect(p.inserted == String(repeating: "é", count: 39) && p.insertedCount == 45)
        try doc.undo(scope: .session("a"), time: 1)
        #expect(Self.preview(doc, redo: true)?.inserted == String(repeating: "é", count: 39))
        #expect(Self.preview(doc, redo: true)?.deleted == "")
    }
}
