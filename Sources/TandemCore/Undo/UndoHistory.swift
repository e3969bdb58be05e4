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
    }

    public var canUndo: Bool
    public var canRedo: Bool
    public var undoActionName: String
    public var redoActionName: String
    public var undoMenuItemTitle: String
    public var redoMenuItemTitle: String
    public var levelsOfUndo: Int
    public var groupingLevel: Int
    /// Oldest first: the last entry is what undo reverts next.
    public var undoStack: [Entry]
    public var redoStack: [Entry]
}
