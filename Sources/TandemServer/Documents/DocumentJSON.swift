import TandemCore
import TandemStore

/// The JSON shapes of documents, changes and history, written by hand (hot paths).
enum DocumentJSON {
    static func document(_ d: DocumentInfo) -> [UInt8] {
        var w = JSONWriter(capacity: 256 + d.text.utf16Count)
        w.beginObject()
        w.key("id"); w.string(d.id)
        w.key("title"); w.string(d.title)
        w.key("revision"); w.int(d.revision)
        w.key("length"); w.int(d.text.utf16Count)
        w.key("text"); w.string(d.text.description)
        w.key("changeCount"); w.int(d.changeCount)
        w.key("hasUnsavedChanges"); w.bool(d.hasUnsavedChanges)
        w.key("state"); w.string(d.condition.rawValue)
        w.key("editingDisabled"); w.bool(d.editingDisabled)
        w.key("secure"); w.bool(d.secure)
        w.key("levelsOfUndo"); w.int(d.levelsOfUndo)
        w.key("created"); w.double(d.created)
        w.key("modified"); w.double(d.modified)
        w.key("access"); w.string(d.access.rawValue)
        w.key("owner"); w.optionalString(d.owner)
        w.key("role"); w.optionalString(d.role?.name)
        w.key("canEdit"); w.bool(d.canEdit)
        w.key("canRename"); w.bool(d.canRename)
        w.endObject()
        return w.bytes
    }

    /// What `POST /documents` answers: the document, and its owner link, shown this once.
    static func created(_ c: CreatedDocument) -> [UInt8] {
        var bytes = document(c.info)
        var w = JSONWriter(capacity: 160)
        shareLink(c.ownerLink, token: c.ownerToken, to: &w)
        bytes.removeLast()
        bytes += Array(",\"ownerLink\":".utf8) + w.bytes + [UInt8(ascii: "}")]
        return bytes
    }

    /// A document's access rules as its owner sees them (never a link's token or hash).
    static func access(_ rules: AccessRules, names: (String) -> String?) -> [UInt8] {
        var w = JSONWriter(capacity: 96 + 96 * (rules.members.count + rules.links.count))
        w.beginObject()
        w.key("access"); w.string(rules.access.rawValue)
        w.key("owner"); w.optionalString(rules.owner)
        w.key("members"); w.beginArray()
        for (session, role) in rules.members.sorted(by: { $0.key < $1.key }) {
            w.beginObject()
            w.key("session"); w.string(session)
            w.key("name"); w.optionalString(names(session))
            w.key("role"); w.string(role.name)
            w.endObject()
        }
        w.endArray()
        w.key("links"); w.beginArray()
        for link in rules.links { shareLink(link, token: nil, to: &w) }
        w.endArray()
        w.endObject()
        return w.bytes
    }

    /// A share link; its token only when it was just made (shown once).
    static func shareLink(_ link: ShareLink, token: String?, to w: inout JSONWriter) {
        w.beginObject()
        w.key("id"); w.string(link.id)
        w.key("role"); w.string(link.role.name)
        if let token { w.key("token"); w.string(token) }
        w.key("created"); w.double(link.created)
        w.key("expires"); if let e = link.expires { w.double(e) } else { w.null() }
        w.key("revoked"); w.bool(link.revoked)
        w.endObject()
    }

    /// An `EditResult`, as `POST …/edits` and the other whole-text edits answer it.
    static func edit(_ r: EditResult) -> [UInt8] {
        var w = JSONWriter(capacity: 96)
        w.beginObject()
        w.key("revision"); w.int(r.revision)
        w.key("ops")
        if let op = r.operation { CompactOperation.write(op, to: &w) } else { w.beginArray(); w.endArray() }
        w.key("selection"); selection(r.selection, to: &w)
        w.endObject()
        return w.bytes
    }

    static func version(_ v: StoredVersion) -> [UInt8] { version(v.summary) }

    static func version(_ v: StoredVersion.Summary) -> [UInt8] {
        var w = JSONWriter(capacity: 128)
        w.beginObject()
        versionFields(v, to: &w)
        w.endObject()
        return w.bytes
    }

    /// The `saved` event: the version, the automatic checkpoint it took the place of, and the
    /// older ones it removed to stay within the document's budget for versions.
    static func saved(_ v: StoredVersion, replaced: Int?, dropped: [Int]) -> [UInt8] {
        var w = JSONWriter(capacity: 160 + 8 * dropped.count)
        w.beginObject()
        versionFields(v.summary, to: &w)
        w.key("replaced"); if let replaced { w.int(replaced) } else { w.null() }
        w.key("dropped"); w.beginArray()
        for number in dropped { w.int(number) }
        w.endArray()
        w.endObject()
        return w.bytes
    }

    /// The `versionRemoved` event.
    static func removedVersion(_ number: Int) -> [UInt8] {
        var w = JSONWriter(capacity: 24)
        w.beginObject()
        w.key("number"); w.int(number)
        w.endObject()
        return w.bytes
    }

    private static func versionFields(_ v: StoredVersion.Summary, to w: inout JSONWriter) {
        w.key("number"); w.int(v.number)
        w.key("revision"); w.int(v.revision)
        w.key("time"); w.double(v.time)
        w.key("length"); w.int(v.length)
        w.key("name"); w.optionalString(v.name)
        w.key("automatic"); w.bool(v.automatic)
        w.key("since"); if let since = v.since { w.double(since) } else { w.null() }
    }

    /// An `ActionResult` (cut, paste, delete).
    static func action(_ r: ActionResult) -> [UInt8] {
        var w = JSONWriter(capacity: 128)
        w.beginObject()
        w.key("revision"); w.int(r.revision)
        w.key("ops")
        if let op = r.operation { CompactOperation.write(op, to: &w) } else { w.beginArray(); w.endArray() }
        w.key("actionName"); w.string(r.actionName)
        w.key("selection"); selection(r.selection, to: &w)
        if let p = r.pasteboard {
            w.key("pasteboard"); w.string(p.name)
            w.key("changeCount"); w.int(p.changeCount)
        }
        w.endObject()
        return w.bytes
    }

    /// What copy answers.
    static func copied(_ r: CopyResult) -> [UInt8] {
        var w = JSONWriter(capacity: 96)
        w.beginObject()
        w.key("pasteboard"); w.string(r.pasteboard)
        w.key("changeCount"); w.int(r.changeCount)
        w.key("selection"); selection(r.selection, to: &w)
        w.endObject()
        return w.bytes
    }

    /// What select and selectAll answer.
    static func selected(_ s: (revision: Int, selection: Selection)) -> [UInt8] {
        var w = JSONWriter(capacity: 64)
        w.beginObject()
        w.key("revision"); w.int(s.revision)
        w.key("selection"); selection(s.selection, to: &w)
        w.endObject()
        return w.bytes
    }

    /// A `GET /documents` entry: `role` is the caller's person's, `opened` when they last did.
    static func summary(id: String, state st: DocumentState, role: Role?, opened: Double?, to w: inout JSONWriter) {
        summary(id: id, title: st.title, revision: st.committedRevision, length: st.committedRope.utf16Count,
                modified: st.modified, role: role, opened: opened, to: &w)
    }

    static func summary(id: String, title: String, revision: Int, length: Int, modified: Double, role: Role?,
                        opened: Double?, to w: inout JSONWriter) {
        w.beginObject()
        w.key("id"); w.string(id)
        w.key("title"); w.string(title)
        w.key("revision"); w.int(revision)
        w.key("length"); w.int(length)
        w.key("modified"); w.double(modified)
        w.key("role"); w.optionalString(role?.name)
        w.key("opened")
        if let opened { w.double(opened) } else { w.null() }
        w.endObject()
    }

    static func change(_ c: Change, to w: inout JSONWriter) {
        w.beginObject()
        w.key("revision"); w.int(c.revision)
        w.key("ops"); CompactOperation.write(c.operation, to: &w)
        w.key("session"); w.optionalString(c.session)
        w.key("kind"); w.string(c.kind.rawValue)
        w.key("actionName"); w.string(c.actionName)
        w.key("time"); w.double(c.time)
        // Only undo and redo carry them: an edit's would be the same 45 bytes on every
        // keystroke, to every subscriber.
        if c.kind != .edit { reverts(c, to: &w) }
        w.endObject()
    }

    /// `reverts`, `partial` and `notReverted`: which group an undo (redo) reverted, and
    /// whether others had already taken part of its effect away.
    static func reverts(_ c: Change, to w: inout JSONWriter) {
        w.key("reverts")
        if let r = c.reverts {
            w.beginObject(); w.key("session"); w.optionalString(r.session); w.key("group"); w.int(r.group); w.endObject()
        } else {
            w.null()
        }
        w.key("partial"); w.bool(c.isPartial)
        w.key("notReverted"); w.int(c.notReverted)
    }

    static func change(_ c: Change) -> [UInt8] {
        var w = JSONWriter(capacity: 128)
        change(c, to: &w)
        return w.bytes
    }

    static func selection(_ s: Selection?, to w: inout JSONWriter) {
        guard let s else { w.null(); return }
        w.beginObject()
        w.key("anchor"); w.int(s.anchor)
        w.key("head"); w.int(s.head)
        w.endObject()
    }

    static func history(_ h: UndoHistory, to w: inout JSONWriter) {
        w.beginObject()
        w.key("canUndo"); w.bool(h.canUndo)
        w.key("canRedo"); w.bool(h.canRedo)
        w.key("undoActionName"); w.string(h.undoActionName)
        w.key("redoActionName"); w.string(h.redoActionName)
        w.key("undoMenuItemTitle"); w.string(h.undoMenuItemTitle)
        w.key("redoMenuItemTitle"); w.string(h.redoMenuItemTitle)
        w.key("levelsOfUndo"); w.int(h.levelsOfUndo)
        w.key("ownLevelsOfUndo"); w.int(h.ownLevelsOfUndo)
        w.key("groupingLevel"); w.int(h.groupingLevel)
        w.key("undoActionIsDiscardable"); w.bool(h.undoActionIsDiscardable)
        w.key("redoActionIsDiscardable"); w.bool(h.redoActionIsDiscardable)
        w.key("undoRegistrationEnabled"); w.bool(h.undoRegistrationEnabled)
        w.key("undoStack"); entries(h.undoStack, to: &w)
        w.key("redoStack"); entries(h.redoStack, to: &w)
        w.endObject()
    }

    private static func entries(_ list: [UndoHistory.Entry], to w: inout JSONWriter) {
        w.beginArray()
        for e in list {
            w.beginObject()
            w.key("id"); w.int(e.id)
            w.key("actionName"); w.string(e.actionName)
            w.key("revision"); w.int(e.revision)
            w.key("session"); w.optionalString(e.session)
            w.key("time"); w.double(e.time)
            w.key("preview")
            if let p = e.preview {
                w.beginObject()
                w.key("position"); w.int(p.position)
                w.key("inserted"); w.string(p.inserted)
                w.key("deleted"); w.string(p.deleted)
                w.key("insertedCount"); w.int(p.insertedCount)
                w.key("deletedCount"); w.int(p.deletedCount)
                w.endObject()
            } else {
                w.null()
            }
            w.endObject()
        }
        w.endArray()
    }
}
