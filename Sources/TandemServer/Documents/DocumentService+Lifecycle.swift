import TandemCore
import TandemHTTP
import TandemStore

/// What `POST /documents` asks for, decoded and checked.
struct NewDocument: Sendable {
    /// Chosen by the caller, or random.
    var id: String
    var title: String
    var text: String
}

/// What a `PATCH /documents/{id}` asks to change.
struct DocumentPatch: Sendable {
    var title: String?
    var editingDisabled: Bool?
    var secure: Bool?
    var levels: Int?
}

extension DocumentService {
    /// A document has that id already: checked before the store is asked, then by the store,
    /// then again as the new document is published.
    static func idTaken(_ id: String) -> APIError { .conflict("id_taken", "a document with id '\(id)' exists") }

    /// Creates the document; it is published (found by requests) only once stored.
    func create(_ new: NewDocument, completion: @escaping Completion<DocumentInfo>) {
        if documents.withLock({ $0[new.id] != nil }) { return completion(.failure(Self.idTaken(new.id))) }
        let time = now()
        let document = Document(text: new.text, configuration: documentConfiguration(levelsOfUndo: 0))
        let state = makeState(document: document, title: new.title, created: time, modified: time, metadata: DocumentMetadata())
        let stored = StoredDocument(id: new.id, title: new.title, created: time, modified: time, metadata: DocumentMetadata(state).encoded)
        let snapshot = StoredSnapshot(documentID: new.id, revision: 0, payload: SnapshotCodec.encode(document.snapshot()))
        let info = DocumentInfo(id: new.id, state: state)
        let handle = DocumentHandle(id: new.id, state: state, events: makeEventChannel())
        store.submit([.createDocument(stored, snapshot: snapshot)]) { [self] result in
            switch result {
            case .success: break
            case .failure(.conflict): return completion(.failure(Self.idTaken(new.id)))
            case .failure(let error):
                logger.error("could not create document \(new.id): \(error)")
                return completion(.failure(.storageFailing))
            }
            let inserted = documents.withLock { docs -> Bool in
                if docs[new.id] != nil { return false }
                docs[new.id] = handle
                return true
            }
            if !inserted { return completion(.failure(Self.idTaken(new.id))) }
            metrics.increment("tandem_documents_created_total")
            completion(.success(info))
        }
    }

    /// Deletes the document with its pending undo state (a new document under this id must
    /// not replay it); once stored, its long-polls get 404 and its streams end.
    func delete(_ handle: DocumentHandle, completion: @escaping Completion<Void>) {
        let id = handle.id
        store.submit([.deleteDocument(id), .setMeta(Self.pendingKey(id), nil)]) { [self] result in
            if case .failure(let error) = result {
                logger.error("could not delete document \(id): \(error)")
                return completion(.failure(.storageFailing))
            }
            forget(handle)
            completion(.success(()))
        }
    }

    private func forget(_ handle: DocumentHandle) {
        let id = handle.id
        let pollers: [DocumentState.Poller] = handle.state.withLock { st in
            st.deleted = true
            defer { st.pollers.removeAll() }
            return st.pollers
        }
        documents.withLock { _ = $0.removeValue(forKey: id) }
        for p in pollers { p.responder.send(APIError.notFound("document '\(id)'").response) }
        handle.events.closeAll()
    }

    /// The document as the caller sees it.
    func info(_ handle: DocumentHandle, scope: UndoScope) -> DocumentInfo {
        handle.state.withLock { DocumentInfo(id: handle.id, state: $0, scope: scope) }
    }

    /// Every open document, by id.
    func allDocuments() -> [DocumentHandle] {
        documents.withLock { $0.values.sorted { $0.id < $1.id } }
    }

    /// Title, editingDisabled, secure and levelsOfUndo. Stored with the document's lock
    /// released (the store's writer takes that lock to publish commits); `checkpoints` keeps
    /// concurrent PATCHes in one order. The document's levelsOfUndo goes into its undo
    /// history, so it is journaled with the metadata as one unit: applied first (the journal
    /// event is the store's record of it), and if the unit is refused the document goes back
    /// to what the store holds. The rest changes only once stored.
    func update(_ handle: DocumentHandle, with patch: DocumentPatch, completion: @escaping Completion<DocumentInfo>) {
        handle.checkpoints.run { [self] done in
            let finish: Completion<DocumentInfo> = { result in
                done()
                completion(result)
            }
            let submitted: (StoredDocument, Bool, StoreTicket)
            do throws(APIError) { submitted = try submitPatch(handle, patch) } catch { return finish(.failure(error)) }
            let (stored, journaled, ticket) = submitted
            whenStored(ticket, of: handle, journaled: journaled, doing: "update") { [self] result in
                if case .failure(let error) = result { return finish(.failure(error)) }
                let updated = handle.state.withLock { st -> (DocumentInfo, Bool, Bool)? in
                    if st.deleted { return nil }
                    let before = st.condition
                    let titleBefore = st.title
                    st.title = stored.title
                    if let editingDisabled = patch.editingDisabled { st.editingDisabled = editingDisabled }
                    if let secure = patch.secure { st.secure = secure }
                    st.modified = stored.modified
                    return (DocumentInfo(id: handle.id, state: st), before != st.condition, titleBefore != st.title)
                }
                guard let (info, stateChanged, titleChanged) = updated else {
                    return finish(.failure(.notFound("document '\(handle.id)'")))
                }
                if stateChanged { broadcastState(handle) }
                if titleChanged { broadcastTitle(handle) }
                finish(.success(info))
            }
        }
    }

    /// Under the document's lock: the metadata as patched (and levelsOfUndo applied and
    /// journaled), submitted as one unit.
    private func submitPatch(_ handle: DocumentHandle, _ patch: DocumentPatch) throws(APIError) -> (StoredDocument, Bool, StoreTicket) {
        try handle.state.withLock { st throws(APIError) -> (StoredDocument, Bool, StoreTicket) in
            if st.deleted { throw .notFound("document '\(handle.id)'") }
            var next = st
            if let title = patch.title { next.title = title }
            if let editingDisabled = patch.editingDisabled { next.editingDisabled = editingDisabled }
            if let secure = patch.secure { next.secure = secure }
            let stored = StoredDocument(id: handle.id, title: next.title, created: next.created, modified: now(),
                                        metadata: DocumentMetadata(next, levelsOfUndo: patch.levels).encoded)
            var writes: [StoreWrite] = [.updateDocument(stored)]
            var journaled = false
            if let levels = patch.levels {
                st.document.undoManager.levelsOfUndo = levels
                if let journal = pendingJournalWrite(st, id: handle.id) {
                    writes.append(journal)
                    journaled = true
                }
            }
            let ticket = StoreTicket()
            store.submit(writes) { ticket.finish($0) }
            return (stored, journaled, ticket)
        }
    }
}
