import TandemCore

/// The JSON shapes of documents, changes and history, written by hand (hot paths).
enum DocumentJSON {
    /// `scope` is the caller's: its `changeCount` is that scope's (see `reportedChangeCount`).
    static func document(id: String, state st: DocumentState, scope: UndoScope = .document) -> [UInt8] {
        // What is committed: a client that reads revision R may then ask for `edits?since=R`.
        let doc = st.document
        let rope = st.committedRope
        var w = JSONWriter(capacity: 256 + rope.utf16Count)
        w.beginObject()
        w.key("id"); w.string(id)
        w.key("title"); w.string(st.title)
        w.key("revision"); w.int(st.committedRevision)
        w.key("length"); w.int(rope.utf16Count)
        w.key("text"); w.string(rope.description)
        w.key("changeCount"); w.int(st.reportedChangeCount(scope))
        w.key("hasUnsavedChanges"); w.bool(st.hasUnsavedChanges)
        w.key("state"); w.string(st.condition.rawValue)
        w.key("editingDisabled"); w.bool(st.editingDisabled)
        w.key("secure"); w.bool(st.secure)
        w.key("levelsOfUndo"); w.int(doc.undoManager.levelsOfUndo)
        w.key("created"); w.double(st.created)
        w.key("modified"); w.double(st.modified)
        w.endObject()
        return w.bytes
    }

    static func summary(id: String, state st: DocumentState, to w: inout JSONWriter) {
        w.beginObject()
        w.key("id"); w.string(id)
        w.key("title"); w.string(st.title)
        w.key("revision"); w.int(st.committedRevision)
        w.key("length"); w.int(st.committedRope.utf16Count)
        w.key("modified"); w.double(st.modified)
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
        w.key("groupingLevel"); w.int(h.groupingLevel)
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
            w.endObject()
        }
        w.endArray()
    }
}
