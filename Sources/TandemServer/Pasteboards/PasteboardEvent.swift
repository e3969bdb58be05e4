import TandemCore

/// What subscribers hear about a pasteboard: `changed` after a write, `removed` after a delete.
struct PasteboardEvent: Sendable {
    enum Kind: String, Sendable { case changed, removed }
    var kind: Kind
    /// The pasteboard as it is (changed) or was (removed): who hears of it is who may read it.
    var pasteboard: Pasteboard
    var change: Pasteboard.Change

    var name: String { pasteboard.name }
    var changeCount: Int { pasteboard.changeCount }

    static func changed(_ p: Pasteboard, _ change: Pasteboard.Change) -> PasteboardEvent {
        PasteboardEvent(kind: .changed, pasteboard: p, change: change)
    }

    static func removed(_ p: Pasteboard) -> PasteboardEvent {
        PasteboardEvent(kind: .removed, pasteboard: p, change: Pasteboard.Change(typesAdded: [], typesRemoved: p.types))
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

    /// Whether a subscriber who opened their stream as `reader` hears of it: only those who
    /// may read the pasteboard.
    func concerns(_ reader: PasteboardReader) -> Bool {
        reader.mayRead(pasteboard)
    }
}
