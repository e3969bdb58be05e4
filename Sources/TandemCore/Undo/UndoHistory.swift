/// A scope's undo state at one moment, as `GET /history` reports it.
public struct UndoHistory: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        /// The group's stable id: what `undo(group:)` takes and a change's `reverts` names.
        public var id: Int
        public var actionName: String
        /// The revision of the group's latest change (for redo entries: of the undo).
        public var revision: Int
        public var session: SessionID?
        public var time: Double
        /// What it did, in short (the newest `previewedEntries` of each stack); nil when not
        /// previewed or its changes left the log.
        public var preview: Preview?
    }

    public var canUndo: Bool
    public var canRedo: Bool
    public var undoActionName: String
    public var redoActionName: String
    public var undoMenuItemTitle: String
    public var redoMenuItemTitle: String
    /// The cap in force on the scope's stack (0 = unlimited): a session's own if it set one,
    /// else the document's.
    public var levelsOfUndo: Int
    /// What the scope set itself: a session's own cap (0 = none of its own, the document's
    /// applies), or for the document scope the document's.
    public var ownLevelsOfUndo: Int
    public var groupingLevel: Int
    /// Whether the group the next undo (redo) reverts is discardable.
    public var undoActionIsDiscardable: Bool
    public var redoActionIsDiscardable: Bool
    /// Whether a change in the scope is registered now (neither the document's nor, for a
    /// session, its own registration is disabled).
    public var undoRegistrationEnabled: Bool
    /// Oldest first: the last entry is what undo reverts next.
    public var undoStack: [Entry]
    public var redoStack: [Entry]
}
