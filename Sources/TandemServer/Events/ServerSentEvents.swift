import TandemHTTP
import TandemCore

/// The text/event-stream framing (WHATWG HTML §9.2): `id:`, `event:`, then `data:` lines.
enum ServerSentEvents {
    static func frame(id: Int?, event: String, data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + 32)
        if let id {
            out.append(contentsOf: "id: ".utf8)
            out.append(contentsOf: String(id).utf8)
            out.append(0x0A)
        }
        out.append(contentsOf: "event: ".utf8)
        out.append(contentsOf: event.utf8)
        out.append(0x0A)
        // JSON written by JSONWriter has no raw newlines (then the data goes in one copy), but
        // a line break would end the field, so any other data is split into data: lines.
        if !data.contains(0x0A) {
            out.append(contentsOf: "data: ".utf8)
            out.append(contentsOf: data)
        } else {
            var lineStart = true
            for b in data {
                if lineStart { out.append(contentsOf: "data: ".utf8); lineStart = false }
                if b == 0x0A { out.append(0x0A); lineStart = true } else { out.append(b) }
            }
            if lineStart { out.append(contentsOf: "data: ".utf8) }
        }
        out.append(0x0A)
        out.append(0x0A)
        return out
    }

    /// A committed change and the undo manager notification it is announced with.
    struct ChangeEvent {
        var change: Change
        var notification: String
        /// Notifications that came before the change (a group an undo closed first).
        var preceding: [String] = []
    }

    /// The `change` and `history` events of consecutive committed changes, framed straight
    /// into `w`: a group commit's keystrokes are framed in one buffer, not two buffers each.
    /// JSONWriter never writes a raw newline, so each data fits one `data:` line, as in `frame`.
    ///
    /// A `history` event only says that a session's undo state changed (with a notification),
    /// so a later one of the same session and notification says all an earlier one did: within
    /// the changes given, only the last of each is written (what `EventChannel.coalesce` would
    /// drop from the flush anyway, not built at all: a batch carries one per typist, not one
    /// per keystroke). Returns the history frames written, which a later batch's can
    /// make redundant in turn (see `EventChannel.Coalescable`).
    @discardableResult
    static func appendChangeEvents(_ events: [ChangeEvent], to w: inout JSONWriter) -> [EventChannel.Coalescable] {
        var superseded = [Bool](repeating: false, count: events.count)
        if events.count > 1 {
            var later = Set<HistoryKey>()
            for i in events.indices.reversed() {
                superseded[i] = !later.insert(HistoryKey(events[i])).inserted
            }
        }
        var history: [EventChannel.Coalescable] = []
        for (event, superseded) in zip(events, superseded) {
            let change = event.change
            // Notifications name the undo context that changed: for an undo (redo), the one
            // that held the reverted group, whoever asked.
            let context = change.contextSession
            for name in event.preceding { notification(name, context, revision: change.revision - 1, to: &w) }
            // NSUndoManager's order: willUndo (willRedo), the change, didUndo (didRedo). Never
            // coalesced: each one brackets its own change.
            if change.kind != .edit {
                notification(change.kind == .undo ? "willUndo" : "willRedo", context, revision: change.revision - 1, to: &w)
            }
            // An edit that opened an automatic group (NSUndoManager's per-event group): the group
            // opens before its change and closes after its checkpoint. Never coalesced either:
            // each pair brackets its own group.
            if change.opensAutomaticGroup { notification("didOpenUndoGroup", context, revision: change.revision - 1, to: &w) }
            w.text("id: "); w.int(change.revision); w.text("\nevent: change\ndata: ")
            DocumentJSON.change(change, to: &w)
            w.text("\n\n")
            if !superseded {
                let start = w.bytes.count
                notification(event.notification, context, revision: change.revision, to: &w)
                history.append(EventChannel.Coalescable(key: event.notification + "\u{0}" + (context ?? ""), range: start..<w.bytes.count))
            }
            if change.opensAutomaticGroup {
                notification("willCloseUndoGroup", context, revision: change.revision, to: &w)
                notification("didCloseUndoGroup", context, revision: change.revision, to: &w)
            }
        }
        return history
    }

    /// One `history` frame, `id:` the revision it follows.
    private static func notification(_ name: String, _ session: String?, revision: Int, to w: inout JSONWriter) {
        w.text("id: "); w.int(revision); w.text("\nevent: history\ndata: ")
        w.beginObject()
        w.key("notification"); w.string(name)
        w.key("session"); w.optionalString(session)
        w.key("revision"); w.int(revision)
        w.endObject()
        w.text("\n\n")
    }

    private struct HistoryKey: Hashable {
        var notification: String
        var session: String?
        init(_ event: ChangeEvent) {
            notification = event.notification
            session = event.change.contextSession
        }
    }

    /// `reset`: the client cannot follow from where it is and reloads the document.
    static func reset(revision: Int, reason: String) -> [UInt8] {
        var w = JSONWriter(capacity: 40)
        w.beginObject()
        w.key("reason"); w.string(reason)
        w.endObject()
        return frame(id: revision, event: "reset", data: w.bytes)
    }

    static let keepAlive: [UInt8] = Array(": keep-alive\n\n".utf8)

    /// `retry:` tells EventSource how soon to reconnect after a cut-off.
    static let preamble: [UInt8] = Array("retry: 1000\n\n".utf8)

    /// The request field a relaying node names the part of a stream it wants with
    /// (`EventChannel.Role`): `mirror` or `control`.
    static let relayField = "Tandem-Relay"
    /// The event name of `relayJoined`, which only a relaying node reads.
    static let relayEvent = "tandem-relay"

    /// Tells a relaying node that the stream follows the document from `revision` on: what
    /// came before is in the frames before it.
    static func relayJoined(revision: Int) -> [UInt8] {
        var w = JSONWriter(capacity: 24)
        w.beginObject()
        w.key("revision"); w.int(revision)
        w.endObject()
        return frame(id: nil, event: relayEvent, data: w.bytes)
    }

    static var headers: HTTPHeaders {
        [
            "Content-Type": "text/event-stream; charset=utf-8",
            "Cache-Control": "no-cache",
            "X-Accel-Buffering": "no",
        ]
    }
}

extension Change {
    /// The undo context the change is in: its session's for an edit, the reverted group's
    /// for an undo or redo.
    var contextSession: SessionID? { kind == .edit ? session : reverts?.session }
}
