import TandemCore
import TandemStore

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
        pipeline.commitChange(handle, completion: completion) { [self] st throws(APIError) in
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
        pipeline.commitUndoState(handle, completion: completion, published: { [self] _ in
            events.sendHistoryEvent(handle, "checkpoint", session: scope.sessionID)
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
        pipeline.commitUndoState(handle, completion: completion, published: { [self] _ in
            events.sendHistoryEvent(handle, "removeAllActions", session: scope.sessionID)
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
        pipeline.commitUndoState(handle, completion: completion, published: { [self] _ in
            if !begin { events.sendHistoryEvent(handle, "willCloseUndoGroup", session: session.id) }
            events.sendHistoryEvent(handle, begin ? "didOpenUndoGroup" : "didCloseUndoGroup", session: session.id)
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
        pipeline.commitUndoState(handle, completion: completion) { st throws(APIError) in
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

extension DocumentService {
    /// Every saved version of the document, oldest first, without texts.
    func versions(of handle: DocumentHandle) throws(APIError) -> [StoredVersion.Summary] {
        do { return try store.versionSummaries(document: handle.id) } catch { throw .storageFailing }
    }

    /// Version `n` of the document, as stored.
    func version(_ n: Int, of handle: DocumentHandle) throws(APIError) -> StoredVersion {
        let v: StoredVersion?
        do { v = try store.version(document: handle.id, number: n) } catch { throw .storageFailing }
        guard let v else { throw .notFound("version \(n) of '\(handle.id)'") }
        return v
    }

    /// Writes the committed text as the next version and, if nothing changed meanwhile,
    /// clears the change count, both in one unit: answered once both are stored; refused,
    /// the count goes back to what the store holds (`storeFailed`) and no version exists.
    /// `then` gets the version once stored, and no thread waits. How the version's number is
    /// taken is the replication's (`Replication.saveVersion`): one node alone numbers it
    /// here (`saveAlone`). An automatic checkpoint may take the place of the one before it
    /// (`SaveRequest.replaces(_:at:)`).
    func save(_ handle: DocumentHandle, _ request: SaveRequest, then: @escaping Completion<StoredVersion>) {
        replication.saveVersion(handle, request, of: self, then: then)
    }

    /// `save` on a node alone with its store: the document's lock is held to read, clear and
    /// submit, never while waiting; concurrent saves take their numbers in `checkpoints` order.
    func saveAlone(_ handle: DocumentHandle, _ request: SaveRequest, then: @escaping Completion<StoredVersion>) {
        handle.checkpoints.run { [self] done in
            let finish: @Sendable (Result<StoredVersion, APIError>) -> Void = { result in
                done()
                then(result)
            }
            guard let ledger = handle.versions.withLock({ $0 }) else {
                // The first save since loading reads the versions from the store: on the
                // pool, as every version read, never on the loop that took the request.
                heavyWork.async(lane: handle.id) { [self] in
                    let ledger: VersionLedger
                    do { ledger = try store.versionLedger(document: handle.id) } catch { return finish(.failure(.storageFailing)) }
                    saveNumbered(handle, request, after: ledger, then: finish)
                }
                return
            }
            saveNumbered(handle, request, after: ledger, then: finish)
        }
    }

    /// `save` once the versions are known (inside the document's `checkpoints` job).
    private func saveNumbered(_ handle: DocumentHandle, _ request: SaveRequest, after ledger: VersionLedger,
                              then finish: @escaping @Sendable (Result<StoredVersion, APIError>) -> Void) {
        let submitted: (VersionWrite, StoreTicket)
        do throws(APIError) {
            submitted = try submitVersion(handle, request, after: ledger)
        } catch {
            return finish(.failure(error))
        }
        let (write, ticket) = submitted
        persistence.whenStored(ticket, of: handle, journaled: write.cleared, doing: "save a version of") { [self] result in
            if case .failure(let error) = result {
                // Read again next time: another node may have numbered a version meanwhile.
                handle.versions.withLock { $0 = nil }
                return finish(.failure(error))
            }
            var known = ledger
            write.applied(to: &known)
            handle.versions.withLock { $0 = known }
            persistence.versionStored(write, in: handle)
            finish(.success(write.version))
        }
    }

    /// Under the document's lock: the committed text as the version after those in `ledger`,
    /// and the change count cleared with it when nothing is in flight, submitted as one unit.
    private func submitVersion(_ handle: DocumentHandle, _ request: SaveRequest, after ledger: VersionLedger) throws(APIError) -> (VersionWrite, StoreTicket) {
        try handle.executor.sync { st throws(APIError) -> (VersionWrite, StoreTicket) in
                if st.deleted { throw st.goneError(handle.id) }
                if st.savingError { throw .storageFailing }
                let write = try persistence.versionWrites(&st, of: handle, request, after: ledger)
                let ticket = StoreTicket()
                store.submit(write.writes, delivery: delivery()) { ticket.finish($0) }
                return (write, ticket)
        }
    }

    /// Names version `number` (`.name(nil)` takes its name away) and keeps it, a named
    /// checkpoint being never replaced by a later one; or removes it. Run in the document's
    /// `checkpoints` order, so a checkpoint written meanwhile decides knowing of it; in a
    /// cluster the store removes only a version still automatic (`StoreWrite.removeCheckpoint`).
    /// Every window hears of it (`version`, `versionRemoved`). Answers the version as it is now
    /// (as it was, once removed).
    func editVersion(_ number: Int, _ edit: VersionEdit, of handle: DocumentHandle, then: @escaping Completion<StoredVersion>) {
        handle.checkpoints.run { [self] done in
            let finish: @Sendable (Result<StoredVersion, APIError>) -> Void = { result in
                done()
                then(result)
            }
            let missing = APIError.notFound("version \(number) of '\(handle.id)'")
            // Reads the store: on the pool, never on the thread that finished the last job.
            heavyWork.async(lane: handle.id) { [self] in
                let stored: StoredVersion?
                do { stored = try store.version(document: handle.id, number: number) } catch { return finish(.failure(.storageFailing)) }
                guard var version = stored else { return finish(.failure(missing)) }
                let write: StoreWrite
                switch edit {
                case .name(let name):
                    (version.name, version.automatic) = (name, false)
                    write = .nameVersion(document: handle.id, number: number, name: name)
                case .remove:
                    write = .removeVersion(document: handle.id, number: number)
                }
                let edited = version
                let ticket = StoreTicket()
                store.submit([write], delivery: delivery()) { ticket.finish($0) }
                ticket.whenFinished { [self] result in
                    switch result {
                    case .success:
                        handle.versions.withLock { ledger in
                            if case .remove = edit { ledger?.removed(number) } else { ledger?.named(number) }
                        }
                        let (event, data) = if case .remove = edit {
                            ("versionRemoved", DocumentJSON.removedVersion(number))
                        } else {
                            ("version", DocumentJSON.version(edited))
                        }
                        handle.executor.sync { st in
                            guard !st.deleted else { return }
                            handle.events.send(ServerSentEvents.frame(id: st.committedRevision, event: event, data: data))
                        }
                        finish(.success(edited))
                    case .failure(.notFound):
                        finish(.failure(missing))
                    case .failure(let error):
                        logger.error("could not change version \(number) of document \(handle.id): \(error)")
                        finish(.failure(.storageFailing))
                    }
                }
            }
        }
    }

    /// How long autosave waits after its checkpoint found no room in the document's versions.
    static let autosaveRetryAfterFull: Double = 60

    /// The saveless model: a document with unsaved changes saves itself once it has been
    /// quiet for a moment, and at least every 30 s while someone keeps typing.
    func autosave(now: Double) {
        for handle in handles.all() {
            let due = handle.executor.sync { st -> Bool in
                guard st.hasUnsavedChanges, !st.savingError, st.lastChangeLocal, st.committedRevision == st.document.revision else { return false }
                let quietFor = now - st.modified
                let sinceSave = now - (st.lastSaved ?? st.created)
                return quietFor >= 2 || sinceSave >= 30
            }
            guard due, now >= handle.autosaveRefusedUntil.withLock({ $0 }),
                  handle.autosaving.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { continue }
            save(handle, SaveRequest(automatic: true)) { [logger] result in
                if case .failure(let error) = result, error.code == "versions_full" {
                    // The text stays durable in the change log; only the checkpoint waits.
                    logger.warning("no room for an autosave checkpoint of document \(handle.id): \(error.message)")
                    handle.autosaveRefusedUntil.withLock { $0 = now + Self.autosaveRetryAfterFull }
                }
                handle.autosaving.store(false, ordering: .releasing)
            }
        }
    }
}
