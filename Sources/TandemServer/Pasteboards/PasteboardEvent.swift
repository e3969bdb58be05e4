import TandemCore

/// What subscribers hear about a pasteboard: `changed` after a write, `removed` after a delete.
struct PasteboardEvent: Sendable {
    enum Kind: String, Sendable { case changed, removed }
    var kind: Kind
    var name: String
    /// Who owns it: document streams tell a session only about `general` and its own.
    var owner: String?
    var changeCount: Int
    var change: Pasteboard.Change

    static func changed(_ p: Pasteboard, _ change: Pasteboard.Change) -> PasteboardEvent {
        PasteboardEvent(kind: .changed, name: p.name, owner: p.owner, changeCount: p.changeCount, change: change)
    }

    static func removed(_ p: Pasteboard) -> PasteboardEvent {
        PasteboardEvent(kind: .removed, name: p.name, owner: p.owner, changeCount: p.changeCount,
                        change: Pasteboard.Change(typesAdded: [], typesRemoved: p.types))
    }

    /// `{"kind","name"}`, plus `"changeCount","typesAdded","typesRemoved"` for changed.
    var json: [UInt8] {
        var w = JSONWriter(capacity: 96)
        w.beginObject()
        w.key("kind"); w.string(kind.rawValue)
        w.key("name"); w.string(name)
        if kind == .changed {
            w.key("changeCount"); w.int(changeCount)
            w.key("typesAdded"); w.beginArray(); for t in change.typesAdded { w.string(t) }; w.endArray()
            w.key("typesRemoved"); w.beginArray(); for t in change.typesRemoved { w.string(t) }; w.endArray()
        }
        w.endObject()
        return w.bytes
    }

    /// Whether a document-stream subscriber of `session` hears of it.
    func concerns(_ session: String?) -> Bool {
        name == Pasteboard.generalName || (owner != nil && owner == session)
    }
}
