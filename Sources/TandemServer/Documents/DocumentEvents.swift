import TandemCore

/// The events a document's stream carries besides changes (those are framed by the
/// `ChangePipeline` as they commit): history notifications, state, title, presence, and
/// pasteboard changes that concern a stream's session.
///
/// Each is framed with the document's committed revision as its id and sent at once: what it
/// tells is already true in memory and, where it needs to be, stored.
struct DocumentEvents: Sendable {
    let handles: DocumentHandles
    let sessions: SessionRegistry
    let pasteboards: PasteboardRegistry

    func sendHistoryEvent(_ handle: DocumentHandle, _ notification: String, session: String?) {
        let rev = handle.executor.sync { $0.committedRevision }
        handle.events.send(ServerSentEvents.frame(id: rev, event: "history", data: historyEventJSON(notification, session: session)))
    }

    /// A `history` event that no change carries (a group closed, the history cleared); the
    /// ones changes carry are framed by `ServerSentEvents.appendChangeEvents`.
    func historyEventJSON(_ notification: String, session: String?) -> [UInt8] {
        var w = JSONWriter(capacity: 96)
        w.beginObject()
        w.key("notification"); w.string(notification)
        w.key("session"); w.optionalString(session)
        w.endObject()
        return w.bytes
    }

    func broadcastState(_ handle: DocumentHandle) {
        let (rev, condition) = handle.executor.sync { ($0.committedRevision, $0.condition) }
        var w = JSONWriter(capacity: 48)
        w.beginObject()
        w.key("state"); w.string(condition.rawValue)
        w.endObject()
        handle.events.send(ServerSentEvents.frame(id: rev, event: "state", data: w.bytes))
    }

    /// A renamed document's new title, so every open window shows it at once.
    func broadcastTitle(_ handle: DocumentHandle) {
        let (rev, title) = handle.executor.sync { ($0.committedRevision, $0.title) }
        var w = JSONWriter(capacity: 32 + title.utf8.count)
        w.beginObject()
        w.key("title"); w.string(title)
        w.endObject()
        handle.events.send(ServerSentEvents.frame(id: rev, event: "title", data: w.bytes))
    }

    func presenceJSON(_ handle: DocumentHandle) -> [UInt8] {
        presenceJSON(handle, selections: handle.executor.sync { $0.document.selections })
    }

    /// In the document's executor, with its selections.
    func presenceJSON(_ handle: DocumentHandle, selections: [String: Selection]) -> [UInt8] {
        var ids = Set(selections.keys)
        for id in handle.events.sessions { ids.insert(id) }
        var w = JSONWriter(capacity: 64 * ids.count + 2)
        w.beginArray()
        for id in ids.sorted() {
            guard let s = sessions.session(id: id) else { continue }
            w.beginObject()
            w.key("id"); w.string(s.id)
            w.key("name"); w.string(s.name)
            w.key("color"); w.string(s.color)
            // One person in several tabs is several sessions of one user: one avatar.
            w.key("user"); w.optionalString(s.userID)
            w.key("selection"); DocumentJSON.selection(selections[id], to: &w)
            w.endObject()
        }
        w.endArray()
        return w.bytes
    }

    func broadcastPresence(_ handle: DocumentHandle) {
        let rev = handle.executor.sync { $0.committedRevision }
        handle.events.send(ServerSentEvents.frame(id: rev, event: "presence", data: presenceJSON(handle)), replacing: "presence")
    }

    /// A pasteboard changed: told on the pasteboards' stream and to every document stream
    /// whose session it concerns.
    func publishPasteboard(_ event: PasteboardEvent) {
        let data = event.json
        pasteboards.events.send(ServerSentEvents.frame(id: nil, event: event.kind.rawValue, data: data)) {
            event.concerns($0.caller.pasteboardReader)
        }
        let frame = ServerSentEvents.frame(id: nil, event: "pasteboard", data: data)
        for handle in handles.all() {
            handle.events.send(frame) { event.concerns($0.caller.pasteboardReader) }
        }
    }
}
