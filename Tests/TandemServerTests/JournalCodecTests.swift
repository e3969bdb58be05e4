import TandemCore
import Testing
@testable import TandemServer

/// Every journal event survives the stored form byte for byte: a replay after a restart
/// runs exactly what the live document ran.
@Suite struct JournalCodecTests {
    static let events: [DocumentEvent] = [
        .edit(OperationCoding(try! TextOperation.insert("a\"\u{1F600}\n", at: 2, length: 5)), session: "s_1",
              options: EditOptions(actionName: "Type \"x\"", undoable: true, newGroup: true, coalescing: false), time: 1_795_546_967.3384328),
        .edit(OperationCoding(try! TextOperation.delete(from: 1, to: 3, length: 5)), session: nil, options: EditOptions(undoable: false), time: 0.5),
        .edit(OperationCoding(.identity(length: 7)), session: "s_2", options: EditOptions(), time: 3),
        .undo(scope: .document, time: 2.25, nested: false),
        .undo(scope: .session("s_1"), time: 2.5, nested: true),
        .redo(scope: .session("s_1"), time: 4),
        .revert(UndoRequest(.undo, scope: .document, requester: "s_2", time: 4.5)),
        .revert(UndoRequest(.undo, scope: .document, requester: nil, time: 4.75)),
        .revert(UndoRequest(.undo, scope: .session("s_1"), requester: "s_1", group: 2_147_483_647, time: 5)),
        .revert(UndoRequest(.redo, scope: .session("s_1"), requester: "s_1", time: 5.5)),
        .revert(UndoRequest(.undoNestedGroup, scope: .session("s_1"), requester: "s_1", time: 6)),
        .beginUndoGrouping(session: "s_1"),
        .beginUndoGrouping(session: nil),
        .endUndoGrouping(session: "s_1"),
        .setActionName("Paste", scope: .session("s_1")),
        .setActionName("Bold", scope: .document),
        .setLevelsOfUndo(20, scope: .session("s_2")),
        .setLevelsOfUndo(0, scope: .document),
        .setGroupsByEvent(false),
        .removeAllActions(scope: nil),
        .removeAllActions(scope: .document),
        .removeAllActions(scope: .session("s_1")),
        .removeAllActionsWithTarget("s_2"),
        .setActionIsDiscardable(true, scope: .session("s_1")),
        .disableUndoRegistration,
        .enableUndoRegistration,
        .updateChangeCount(.undone),
        .setEditingDisabled(true),
        .trimLog(through: 10_000),
    ]

    @Test(arguments: events.indices)
    func eachEventRoundTrips(_ i: Int) throws {
        #expect(try JournalCodec.decode(JournalCodec.encode([Self.events[i]])) == [Self.events[i]])
    }

    @Test func aWholeJournalRoundTripsInOrder() throws {
        #expect(try JournalCodec.decode(JournalCodec.encode(Self.events)) == Self.events)
    }

    @Test func anEndedSessionIsStoredApartFromClearingItsHistory() throws {
        // Ending a session also forgets its open groups and settings; clearing one's history
        // (DELETE …/history) does not. The two must replay as they ran.
        let bytes = JournalCodec.encode([.removeAllActionsWithTarget("s_9"), .removeAllActions(scope: .session("s_9"))])
        #expect(String(decoding: bytes, as: UTF8.self) == #"[["removeAllWithTarget","s_9"],["removeAll",true,"s_9"]]"#)
        #expect(throws: JournalCodec.DecodeError.self) { try JournalCodec.decode(Array(#"[["removeAllWithTarget",null]]"#.utf8)) }
    }
}
