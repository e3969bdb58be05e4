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

extension Document {
    /// Re-runs one journaled event.
    public func replay(_ event: DocumentEvent) throws(DocumentError) {
        let um = undoManager
        switch event {
        case let .edit(op, session, options, time):
            let operation: TextOperation
            do { operation = try op.operation() } catch { throw .invalidOperation(error) }
            try apply(operation, session: session, options: options, time: time)
        case let .revert(request):
            // An undo that found nothing left to undo is journaled for the groups it dropped
            // on the way; replayed, it drops them again and ends the same way.
            // So is one refused as too large after closing an open group.
            do { try perform(request) } catch .nothingToUndo, .nothingToRedo, .undoTooLarge {}
        case let .undo(scope, time, nested):
            // An undo that found nothing left to undo is journaled for the groups it dropped
            // on the way; replayed, it drops them again and ends the same way.
            do {
                if nested { try undoNestedGroup(scope: scope, time: time) } else { try undo(scope: scope, time: time) }
            } catch .nothingToUndo {}
        case let .redo(scope, time):
            do { try redo(scope: scope, time: time) } catch .nothingToRedo {}
        case let .beginUndoGrouping(session): um.beginUndoGrouping(session: session)
        case let .endUndoGrouping(session): try um.endUndoGrouping(session: session)
        case let .setActionName(name, scope): um.setActionName(name, scope: scope)
        case let .setLevelsOfUndo(levels, scope): um.setLevelsOfUndo(levels, scope: scope)
        case let .setGroupsByEvent(flag): um.groupsByEvent = flag
        case let .removeAllActions(scope):
            if let scope { um.removeAllActions(scope) } else { um.removeAllActions() }
        case let .removeAllActionsWithTarget(session): um.removeAllActions(withTarget: session)
        case let .setActionIsDiscardable(flag, scope): um.setActionIsDiscardable(flag, scope: scope)
        case .disableUndoRegistration: um.disableUndoRegistration()
        case .enableUndoRegistration: try um.enableUndoRegistration()
        case let .disableSessionUndoRegistration(session): um.disableUndoRegistration(session: session)
        case let .enableSessionUndoRegistration(session): try um.enableUndoRegistration(session: session)
        case let .updateChangeCount(kind): updateChangeCount(kind)
        case let .setEditingDisabled(flag): isEditingDisabled = flag
        case let .trimLog(revision): trimLog(through: revision)
        }
    }
}
