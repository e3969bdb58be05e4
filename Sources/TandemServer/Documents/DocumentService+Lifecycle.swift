import TandemCore
import TandemStore

/// What `POST /documents` asks for, decoded and checked.
struct NewDocument: Sendable {
    /// Chosen by the caller, or random.
    var id: String
    var title: String
    var text: String
    /// Nil for the server's default (`--default-access`).
    var access: AccessMode?
    /// The creating session; nil when created anonymously.
    var owner: String?
}

/// A document just created, with its owner link (shown this once).
struct CreatedDocument: Sendable {
    var info: DocumentInfo
    var ownerLink: ShareLink
    var ownerToken: String
}

/// What a `PATCH /documents/{id}` asks to change.
struct DocumentPatch: Sendable {
    var title: String?
    var editingDisabled: Bool?
    var secure: Bool?
    var levels: Int?
    var access: AccessMode?
    /// A live session's id: the document's new owner.
    var owner: String?
}

extension DocumentService {
    /// A document has that id already: checked before the store is asked, then by the store,
    /// then again as the new document is published.
    static func idTaken(_ id: String) -> APIError { .conflict("id_taken", "a document with id '\(id)' exists") }

    /// Creates the document; it is published (found by requests) only once stored.
    func create(_ new: NewDocument, by caller: Caller, completion: @escaping Completion<CreatedDocument>) {
        if handles.find(new.id) != nil { return completion(.failure(Self.idTaken(new.id))) }
        let time = now()
        let document = Document(text: new.text, configuration: persistence.documentConfiguration(levelsOfUndo: 0), author: caller.session?.id)
        let (ownerLink, ownerToken) = ShareLink.make(role: .owner, now: time, expiresIn: nil)
        var initial = AccessRules(access: new.access ?? defaultAccess(owner: new.owner), owner: new.owner)
        initial.links.append(ownerLink)
        let rules = initial
        let state = persistence.makeState(document: document, title: new.title, created: time, modified: time, metadata: DocumentMetadata(access: rules))
        let stored = StoredDocument(id: new.id, title: new.title, created: time, modified: time, metadata: DocumentMetadata(state).encoded,
                                    length: document.length)
        let snapshot = StoredSnapshot(documentID: new.id, revision: 0, payload: SnapshotCodec.encode(document.snapshot()))
        var creator = caller
        creator.link = Caller.PresentedLink(documentID: new.id, linkID: ownerLink.id, role: .owner)
        let info = DocumentInfo(id: new.id, state: state, caller: creator)
        let handle = DocumentHandle(id: new.id, state: state, events: handles.makeEventChannel())
        let delivery = delivery()
        replication.claimNew(new.id) { [self] refused in
            switch refused {
            case nil: break
            case .conflict?: return completion(.failure(Self.idTaken(new.id)))
            case let error?:
                logger.error("could not claim document \(new.id): \(error)")
                return completion(.failure(.storageFailing))
            }
            store.submit([.createDocument(stored, snapshot: snapshot)], delivery: delivery) { [self] result in
                switch result {
                case .success: break
                case .failure(.conflict): return completion(.failure(Self.idTaken(new.id)))
                case .failure(let error):
                    logger.error("could not create document \(new.id): \(error)")
                    return completion(.failure(.storageFailing))
                }
                if !handles.publish(handle, rules: rules) { return completion(.failure(Self.idTaken(new.id))) }
                metrics.increment("tandem_documents_created_total")
                completion(.success(CreatedDocument(info: info, ownerLink: ownerLink, ownerToken: ownerToken)))
            }
        }
    }

    /// Deletes the document with its pending undo state (a new document under this id must
    /// not replay it); once stored, its long-polls get 404 and its streams end.
    func delete(_ handle: DocumentHandle, completion: @escaping Completion<Void>) {
        let id = handle.id
        store.submit([.deleteDocument(id), .setMeta(DocumentPersistence.pendingKey(id), nil)], delivery: delivery()) { [self] result in
            if case .failure(let error) = result {
                logger.error("could not delete document \(id): \(error)")
                return completion(.failure(.storageFailing))
            }
            handles.forget(handle)
            replication.deleted(id)
            completion(.success(()))
        }
    }

    /// The document as the caller sees it.
    func info(_ handle: DocumentHandle, scope: UndoScope, caller: Caller = .anonymous) -> DocumentInfo {
        handle.executor.sync { DocumentInfo(id: handle.id, state: $0, scope: scope, caller: caller) }
    }

    /// What `GET /documents` lists: for the operator every document; for others only what
    /// they may read and their person owns, was given or `opened` (never every readable one:
    /// an address is no invitation to be listed). One opened with a share link is listed
    /// while that link works, as if presented again. Each with the role the caller's person has.
    func documents(listedFor caller: Caller, opened: [String: RecentDocument]) -> [(handle: DocumentHandle, role: Role?)] {
        let time = now()
        return handles.all().sorted { $0.id < $1.id }.compactMap { handle in
            Self.listing(handle.id, rules: handle.access.withLock { $0 }, for: caller, opened: opened[handle.id], at: time)
                .map { (handle, $0.role) }
        }
    }

    /// Whether the document is in the caller's list (the operator's has every one; a person's
    /// those it has a role in or opened, and may still read), and the caller's role in it.
    static func listing(_ id: String, rules: AccessRules, for caller: Caller, opened opening: RecentDocument?,
                        at time: Double) -> Listing? {
        let personal = Caller(session: caller.session)
        let role = rules.role(of: personal, in: id)
        guard caller.isOperator || role != nil || opening != nil else { return nil }
        var reader = caller
        if reader.link?.documentID != id, let linkID = opening?.link, let link = rules.links.first(where: { $0.id == linkID }),
           link.isValid(at: time) {
            reader.link = Caller.PresentedLink(documentID: id, linkID: linkID, role: link.role)
        }
        let readable = AccessPolicy.decide(.read, mode: rules.access, role: rules.role(of: reader, in: id),
                                           hasSession: caller.session != nil) == .allowed
        return readable ? Listing(role: role) : nil
    }

    /// A document in a caller's list, and the caller's role in it (none: opened by link).
    struct Listing {
        var role: Role?
    }

    /// Title, editingDisabled, secure and levelsOfUndo. Stored once the document's executor is
    /// left; `checkpoints` keeps
    /// concurrent PATCHes in one order. The document's levelsOfUndo goes into its undo
    /// history, so it is journaled with the metadata as one unit: applied first (the journal
    /// event is the store's record of it), and if the unit is refused the document goes back
    /// to what the store holds. The rest changes only once stored.
    func update(_ handle: DocumentHandle, with patch: DocumentPatch, by caller: Caller, completion: @escaping Completion<DocumentInfo>) {
        handle.checkpoints.run { [self] done in
            let finish: Completion<DocumentInfo> = { result in
                done()
                completion(result)
            }
            let answer: @Sendable (PatchUnit, Result<Void, StoreError>) -> Void = { [self] unit, result in
                if case .failure(let error) = persistence.stored(result, of: handle, journaled: unit.journaled, doing: "update") {
                    return finish(.failure(error))
                }
                finish(patched(handle, patch, unit.document, by: caller))
            }
            // In the document's order across nodes: levelsOfUndo trims the undo stack the
            // journal shares with the other nodes, after their changes.
            let delivery = delivery()
            replication.order(handle, fail: { finish(.failure($0)) }) { [self] st in
                let unit: PatchUnit
                do throws(APIError) { unit = try patchUnit(&st, handle, patch) } catch { return .answer { finish(.failure(error)) } }
                return .store(PreparedUnit(writes: unit.writes, stored: delivery.completion { answer(unit, $0) }))
            }
        }
    }

    /// Once stored: the patch shows, and those who watch hear of it.
    private func patched(_ handle: DocumentHandle, _ patch: DocumentPatch, _ stored: StoredDocument,
                         by caller: Caller) -> Result<DocumentInfo, APIError> {
        let updated = handle.executor.sync { st -> (DocumentInfo, Bool, Bool, AccessRules)? in
            if st.deleted { return nil }
            let before = st.condition
            let titleBefore = st.title
            st.title = stored.title
            if let editingDisabled = patch.editingDisabled { st.editingDisabled = editingDisabled }
            if let secure = patch.secure { st.secure = secure }
            if let access = patch.access { st.access.access = access }
            // As stored: given to the named session's person.
            if patch.owner != nil { st.access.owner = DocumentMetadata(decoding: stored.metadata).access.owner }
            st.modified = stored.modified
            return (DocumentInfo(id: handle.id, state: st, caller: caller), before != st.condition, titleBefore != st.title, st.access)
        }
        guard let (info, stateChanged, titleChanged, rules) = updated else { return .failure(.notFound("document '\(handle.id)'")) }
        if patch.access != nil || patch.owner != nil { access.accessChanged(handle, to: rules) }
        if stateChanged { events.broadcastState(handle) }
        if titleChanged { events.broadcastTitle(handle) }
        return .success(info)
    }

    /// What a patch stores: the metadata as patched, and with levelsOfUndo the journal it
    /// trimmed (`journaled`).
    private struct PatchUnit {
        var document: StoredDocument
        var writes: [StoreWrite]
        var journaled: Bool
    }

    /// In the document's executor: the metadata as patched (and levelsOfUndo applied and
    /// journaled), to be stored as one unit.
    private func patchUnit(_ st: inout DocumentState, _ handle: DocumentHandle, _ patch: DocumentPatch) throws(APIError) -> PatchUnit {
        if st.deleted { throw st.goneError(handle.id) }
        var next = st
        if let title = patch.title { next.title = title }
        if let editingDisabled = patch.editingDisabled { next.editingDisabled = editingDisabled }
        if let secure = patch.secure { next.secure = secure }
        if let access = patch.access {
            // A viewer link never grants less than the address: one that works keeps the
            // document where it means something.
            let viewers = next.access.links.count { $0.role == .viewer && $0.isValid(at: now()) }
            guard access.viewerLinksMeanSomething || viewers == 0 else { throw .viewerLinksWork(access, count: viewers) }
            next.access.access = access
        }
        if let owner = patch.owner {
            // Given to the session's person: to a user, it outlives the session.
            guard let session = sessions.session(id: owner) else { throw .unknownSession(owner) }
            next.access.owner = session.person
        }
        let stored = StoredDocument(id: handle.id, title: next.title, created: next.created, modified: now(),
                                    metadata: DocumentMetadata(next, levelsOfUndo: patch.levels).encoded)
        var writes: [StoreWrite] = [.updateDocument(stored)]
        var journaled = false
        if let levels = patch.levels {
            st.document.undoManager.levelsOfUndo = levels
            if let journal = persistence.pendingJournalWrite(st, id: handle.id) {
                writes.append(journal)
                journaled = true
            }
        }
        return PatchUnit(document: stored, writes: writes, journaled: journaled)
    }
}
