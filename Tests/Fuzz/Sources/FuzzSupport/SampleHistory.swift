import TandemCore

/// A short editing history touching every kind of journal event: two sessions typing,
/// deleting and pasting (non-ASCII and astral text included), groups, names, undo and redo,
/// levels, a trim. Seeds for the journal, change-run and snapshot targets are encoded from it
/// by the code under test, so they are real stored forms, not hand-made bytes.
public enum SampleHistory {
    public static func events() -> [DocumentEvent] {
        let document = Document(text: "")
        var events: [DocumentEvent] = []
        document.journal = { events.append($0) }
        var time = 1_732_000_000.25
        func edit(_ op: () throws -> TextOperation, _ session: SessionID?, _ options: EditOptions = .init()) {
            time += 0.5
            _ = try? document.apply(try op(), session: session, options: options, time: time)
        }
        let um = document.undoManager
        edit({ try .insert("Hello", at: 0, length: document.length) }, "s_alice")
        edit({ try .insert(" wörld 😀", at: 5, length: document.length) }, "s_alice")
        edit({ try .insert("!", at: document.length, length: document.length) }, "s_bob", EditOptions(actionName: "Typing", coalescing: false))
        _ = um.beginUndoGrouping(session: "s_bob")
        edit({ try .replace(from: 0, to: 5, with: "Goodbye", length: document.length) }, "s_bob", EditOptions(newGroup: true))
        um.setActionName("Replace", scope: .session("s_bob"))
        _ = try? um.endUndoGrouping(session: "s_bob")
        um.setActionIsDiscardable(false, scope: .session("s_bob"))
        time += 1; _ = try? document.undo(scope: .session("s_bob"), time: time)
        time += 1; _ = try? document.redo(scope: .session("s_bob"), time: time)
        edit({ try .delete(from: 1, to: 3, length: document.length) }, nil, EditOptions(undoable: false))
        um.setLevelsOfUndo(20, scope: .session("s_alice"))
        um.groupsByEvent = true
        um.disableUndoRegistration()
        edit({ try .insert("\t\"quoted\"\n", at: 0, length: document.length) }, "s_alice")
        _ = try? um.enableUndoRegistration()
        document.updateChangeCount(.done)
        time += 1; _ = try? document.undo(scope: .document, time: time)
        document.trimLog(through: 2)
        um.removeAllActions(withTarget: "s_alice")
        um.removeAllActions(.session("s_bob"))
        um.removeAllActions()
        document.isEditingDisabled = true
        document.isEditingDisabled = false
        return events
    }

    /// The document the events build, replayed on a fresh one (as start-up does).
    public static func document(upTo count: Int? = nil) -> Document {
        let document = Document(text: "")
        for e in events().prefix(count ?? .max) { try? document.replay(e) }
        return document
    }
}
