import TandemCore

/// What an undo or redo did: the change it made, and the caller's history and selection after it.
struct UndoResult: Sendable {
    var change: Change
    var history: UndoHistory
    var selection: Selection?
}

/// What a `PATCH …/history` asks: name the scope's latest group, cap its stack, or both.
struct HistoryPatch: Sendable {
    var actionName: String?
    var levelsOfUndo: Int?
    /// setActionIsDiscardable for the scope's open (or latest) group.
    var actionIsDiscardable: Bool?
}

/// A session's own undo registration after a disable or enable.
struct RegistrationState: Sendable {
    /// Whether its edits are registered now.
    var enabled: Bool
    /// Its own disables not yet matched by an enable.
    var disabledLevel: Int
}

extension DocumentService {
    /// Undo or redo in the request's scope (selective with `group`, `undoNestedGroup` with
    /// `.undoNestedGroup`), as the caller's change.
    func perform(_ request: UndoRequest, in handle: DocumentHandle, by session: Session?, completion: @escaping Completion<UndoResult>) {
        let scope = request.scope
        commitChange(handle, completion: completion) { [self] st throws(APIError) in
            let um = st.document.undoManager
            let openBefore = um.groupingLevel(scope)
            let change: Change
            do throws(DocumentError) {
                var timed = request
                timed.time = now()
                change = try st.document.perform(timed)
            } catch {
                throw APIError.document(error)
            }
            // An undo closes a level-1 open group first, as NSUndoManager's does: that close is
            // announced before the undo's own willUndo, with it, once both are stored.
            let closed = request.kind != .redo && um.groupingLevel(scope) < openBefore
            let result = UndoResult(change: change, history: um.history(scope), selection: session.flatMap { st.document.selection(for: $0.id) })
            return .changed(change, result, notification: request.kind == .redo ? "didRedo" : "didUndo",
                            preceding: closed ? ["willCloseUndoGroup", "didCloseUndoGroup"] : [])
        }
    }

    /// `setActionName` and `levelsOfUndo` for the scope; answers the scope's history.
    func updateHistory(_ patch: HistoryPatch, scope: UndoScope, in handle: DocumentHandle, completion: @escaping Completion<UndoHistory>) {
        commitUndoState(handle, completion: completion, published: { [self] _ in
            sendHistoryEvent(handle, "checkpoint", session: scope.sessionID)
        }) { st throws(APIError) in
            let um = st.document.undoManager
            if let name = patch.actionName {
                guard um.canUndo(scope) || um.groupingLevel(scope) > 0 else {
                    throw .conflict("nothing_to_undo", "there is no undo group to name")
                }
                um.setActionName(name, scope: scope)
            }
            if let discardable = patch.actionIsDiscardable {
                // As for a name: with no group open and none to undo there is nothing to mark.
                guard um.canUndo(scope) || um.groupingLevel(scope) > 0 else {
                    throw .conflict("nothing_to_undo", "there is no undo group to mark")
                }
                um.setActionIsDiscardable(discardable, scope: scope)
            }
            if let levels = patch.levelsOfUndo { um.setLevelsOfUndo(levels, scope: scope) }
            return um.history(scope)
        }
    }

    /// `removeAllActions` for the scope; answers the (empty) history.
    func clearHistory(scope: UndoScope, in handle: DocumentHandle, completion: @escaping Completion<UndoHistory>) {
        commitUndoState(handle, completion: completion, published: { [self] _ in
            sendHistoryEvent(handle, "removeAllActions", session: scope.sessionID)
        }) { st throws(APIError) in
            st.document.undoManager.removeAllActions(scope)
            return st.document.undoManager.history(scope)
        }
    }

    /// How deep a session may nest undo groups, or registration disables: each level is state
    /// the document keeps (and journals) until its end comes.
    static let maxNesting = 64

    /// `beginUndoGrouping` (`begin`) or `endUndoGrouping` for the session; answers the
    /// grouping level after it.
    func grouping(begin: Bool, in handle: DocumentHandle, by session: Session, completion: @escaping Completion<Int>) {
        commitUndoState(handle, completion: completion, published: { [self] _ in
            if !begin { sendHistoryEvent(handle, "willCloseUndoGroup", session: session.id) }
            sendHistoryEvent(handle, begin ? "didOpenUndoGroup" : "didCloseUndoGroup", session: session.id)
        }) { st throws(APIError) in
            if begin, st.document.undoManager.groupingLevel(.session(session.id)) >= Self.maxNesting {
                throw APIError(.insufficientStorage, "open_groups_full", "at most \(Self.maxNesting) undo groups may be open one inside another")
            }
            do throws(DocumentError) {
                return begin ? st.document.undoManager.beginUndoGrouping(session: session.id)
                             : try st.document.undoManager.endUndoGrouping(session: session.id)
            } catch {
                throw APIError.document(error)
            }
        }
    }

    /// The session's own disableUndoRegistration (`enable: false`) or enableUndoRegistration:
    /// journaled like any undo state, so a restart keeps it; a session's end clears it.
    func registration(enable: Bool, in handle: DocumentHandle, by session: Session, completion: @escaping Completion<RegistrationState>) {
        commitUndoState(handle, completion: completion) { st throws(APIError) in
            let um = st.document.undoManager
            if !enable, um.sessionRegistrationDisabledLevel(session.id) >= Self.maxNesting {
                throw APIError(.insufficientStorage, "registration_disables_full",
                               "at most \(Self.maxNesting) disableUndoRegistration calls may wait for their enable")
            }
            do throws(DocumentError) {
                if enable { try um.enableUndoRegistration(session: session.id) } else { um.disableUndoRegistration(session: session.id) }
            } catch {
                throw APIError.document(error)
            }
            return RegistrationState(enabled: um.isUndoRegistrationEnabled(.session(session.id)),
                                     disabledLevel: um.sessionRegistrationDisabledLevel(session.id))
        }
    }

    /// The scope's history as it stands.
    func history(scope: UndoScope, in handle: DocumentHandle) -> UndoHistory {
        handle.executor.sync { $0.document.undoManager.history(scope) }
    }
}
