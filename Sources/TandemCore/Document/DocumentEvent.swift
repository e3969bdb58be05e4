/// Every call that changes a document's state, as the journal records it. A snapshot plus
/// the events after it, replayed in order, rebuild the same text, log and undo state,
/// because the history is a pure function of these events.
public enum DocumentEvent: Sendable, Codable, Equatable {
    /// An edit, as applied (already transformed to the revision before it).
    case edit(OperationCoding, session: SessionID?, options: EditOptions, time: Double)
    /// An undo, redo or undoNestedGroup with its requester (and group, for a selective undo).
    case revert(UndoRequest)
    /// Journals written before `revert` existed: the scope's session asked.
    case undo(scope: UndoScope, time: Double, nested: Bool)
    case redo(scope: UndoScope, time: Double)
    case beginUndoGrouping(session: SessionID?)
    case endUndoGrouping(session: SessionID?)
    case setActionName(String, scope: UndoScope)
    case setLevelsOfUndo(Int, scope: UndoScope)
    case setGroupsByEvent(Bool)
    /// nil scope: removeAllActions().
    case removeAllActions(scope: UndoScope?)
    /// A session ended: removeAllActions(withTarget:). (Journals written before this case
    /// existed have `removeAllActions(scope: .session(s))` there, and replay as they ran.)
    case removeAllActionsWithTarget(SessionID)
    case setActionIsDiscardable(Bool, scope: UndoScope)
    case disableUndoRegistration
    case enableUndoRegistration
    /// One session's own disable (enable) of registration: its edits alone stop (resume)
    /// registering.
    case disableSessionUndoRegistration(SessionID)
    case enableSessionUndoRegistration(SessionID)
    case updateChangeCount(DocumentChangeKind)
    case setEditingDisabled(Bool)
    case trimLog(through: Int)
}
