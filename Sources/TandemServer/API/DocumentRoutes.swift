import Foundation
import TandemCore
import TandemHTTP
import TandemStore

extension ServerContext {
    var documentEndpoints: [Endpoint] {
        [
            Endpoint(
                method: .post, path: "/documents", operationID: "createDocument",
                summary: "Create a document; its starting text is not an undoable change", tag: "Documents",
                requestBody: Endpoint.jsonBody(Schemas.object([
                    ("title", ["type": "string", "maxLength": 500]), ("text", Schemas.string),
                    ("id", ["type": "string", "pattern": "^[A-Za-z0-9._-]{1,128}$"]),
                ], required: []), required: false),
                responses: [
                    Endpoint.json(201, "Created", Schemas.ref("Document")),
                    Endpoint.error(400, "Malformed JSON, field or id"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(409, "The id is taken"),
                    Endpoint.error(413, "Too large"),
                    Endpoint.error(415, "Body is not JSON"),
                    Endpoint.error(503, "The store cannot save"),
                ],
                handler: { [self] req, res in createDocument(req, res) }
            ),
            Endpoint(
                method: .get, path: "/documents", operationID: "listDocuments",
                summary: "All documents", tag: "Documents",
                responses: [Endpoint.json(200, "Documents by id", Schemas.array(Schemas.ref("DocumentSummary")))],
                handler: { [self] _, res in res.send(.json(listDocuments())) }
            ),
            Endpoint(
                method: .get, path: "/documents/{id}", operationID: "getDocument",
                summary: "A document with its text; ETag is the revision", tag: "Documents",
                parameters: [Endpoint.header("If-None-Match", "An ETag from before: 304 when unchanged")],
                responses: [
                    Endpoint.json(200, "The document", Schemas.ref("Document")),
                    Endpoint.Response(status: 304, description: "Not modified since the ETag"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(404, "No such document"),
                ],
                handler: { [self] req, res in res.respond { () throws(APIError) in try getDocument(req, asText: false) } }
            ),
            Endpoint(
                method: .delete, path: "/documents/{id}", operationID: "deleteDocument",
                summary: "Delete a document", tag: "Documents",
                responses: [
                    Endpoint.Response(status: 204, description: "Deleted"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(404, "No such document"),
                    Endpoint.error(503, "The store cannot delete"),
                ],
                handler: { [self] req, res in deleteDocument(req, res) }
            ),
            Endpoint(
                method: .patch, path: "/documents/{id}", operationID: "updateDocument",
                summary: "Title, editingDisabled, secure, levelsOfUndo", tag: "Documents",
                requestBody: Endpoint.jsonBody(Schemas.object([
                    ("title", ["type": "string", "maxLength": 500]), ("editingDisabled", Schemas.boolean),
                    ("secure", Schemas.boolean), ("levelsOfUndo", Schemas.nonNegative),
                ], required: [])),
                responses: [
                    Endpoint.json(200, "The document", Schemas.ref("Document")),
                    Endpoint.error(400, "Malformed JSON or field"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(404, "No such document"),
                    Endpoint.error(415, "Body is not JSON"),
                    Endpoint.error(503, "The store cannot save"),
                ],
                handler: { [self] req, res in patchDocument(req, res) }
            ),
            Endpoint(
                method: .get, path: "/documents/{id}/text", operationID: "getDocumentText",
                summary: "The text as text/plain; ETag is the revision", tag: "Documents",
                parameters: [Endpoint.header("If-None-Match", "An ETag from before: 304 when unchanged")],
                responses: [
                    Endpoint.Response(status: 200, description: "The text", schema: Schemas.string, mediaType: "text/plain"),
                    Endpoint.Response(status: 304, description: "Not modified since the ETag"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(404, "No such document"),
                ],
                handler: { [self] req, res in res.respond { () throws(APIError) in try getDocument(req, asText: true) } }
            ),
            Endpoint(
                method: .put, path: "/documents/{id}/text", operationID: "replaceDocumentText",
                summary: "Replace the whole text as one undoable change named Replace", tag: "Documents",
                parameters: [Endpoint.header("If-Match", "Only if the document is still at this ETag (else 412)"),
                             Endpoint.header("Idempotency-Key", "Makes a resend safe")],
                requestBody: ["required": true, "content": ["text/plain": ["schema": Schemas.string]]],
                responses: [
                    Endpoint.json(200, "The change as applied", Schemas.ref("EditResult")),
                    Endpoint.error(400, "Body is not UTF-8"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(403, "Editing is disabled"),
                    Endpoint.error(404, "No such document"),
                    Endpoint.error(412, "If-Match does not match"),
                    Endpoint.error(413, "Too large"),
                    Endpoint.error(415, "Body is not text/plain"),
                    Endpoint.error(503, "The store cannot save"),
                ],
                handler: { [self] req, res in replaceText(req, res) }
            ),
        ]
    }

    static func isValidDocumentID(_ id: String) -> Bool {
        guard (1...128).contains(id.utf8.count) else { return false }
        return id.utf8.allSatisfy { b in
            (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 46 || b == 95 || b == 45
        }
    }

    func createDocument(_ req: HTTPRequest, _ res: HTTPResponder) {
        let created: (String, DocumentState, StoredDocument, StoredSnapshot)
        do throws(APIError) { created = try newDocument(req) } catch { return res.send(error.response) }
        let (id, state, stored, snapshot) = created
        // Built now, published once stored: until then no request can find it.
        let json = DocumentJSON.document(id: id, state: state)
        let handle = DocumentHandle(id: id, state: state, events: makeEventChannel())
        store.submit([.createDocument(stored, snapshot: snapshot)]) { [self] result in
            switch result {
            case .success: break
            case .failure(.conflict): return res.send(Self.idTaken(id).response)
            case .failure(let error):
                logger.error("could not create document \(id): \(error)")
                return res.send(APIError.storageFailing.response)
            }
            let inserted = documents.withLock { docs -> Bool in
                if docs[id] != nil { return false }
                docs[id] = handle
                return true
            }
            if !inserted { return res.send(Self.idTaken(id).response) }
            metrics.increment("tandem_documents_created_total")
            res.send(.json(json, status: .created, headers: ["Location": "/documents/\(id)", "ETag": "\"0\""]))
        }
    }

    /// A document has that id already: checked before the store is asked, then by the store,
    /// then again as the new document is published.
    static func idTaken(_ id: String) -> APIError { .conflict("id_taken", "a document with id '\(id)' exists") }

    /// The document a create asks for, as it will be stored; `id_taken` if one has its id.
    private func newDocument(_ req: HTTPRequest) throws(APIError) -> (String, DocumentState, StoredDocument, StoredSnapshot) {
        _ = try session(of: req)
        let body = try RequestBody.object(req)
        try body.allowOnly(["title", "text", "id"])
        let text = try body.string("text") ?? ""
        var title = try body.string("title") ?? "Untitled"
        if title.count > 500 { throw .invalidField("title", "must be at most 500 characters") }
        if title.isEmpty { title = "Untitled" }
        let id: String
        if let given = try body.string("id") {
            guard Self.isValidDocumentID(given) else {
                throw .invalidField("id", "must match [A-Za-z0-9._-]{1,128}")
            }
            id = given
        } else {
            id = Secrets.base64url(Secrets.randomBytes(9))
        }
        let time = now()
        let document = Document(text: text, configuration: documentConfiguration(levelsOfUndo: 0))
        let state = makeState(document: document, title: title, created: time, modified: time, metadata: DocumentMetadata())
        let taken = documents.withLock { $0[id] != nil }
        if taken { throw Self.idTaken(id) }
        let stored = StoredDocument(id: id, title: title, created: time, modified: time, metadata: DocumentMetadata(state).encoded)
        return (id, state, stored, StoredSnapshot(documentID: id, revision: 0, payload: SnapshotCodec.encode(document.snapshot())))
    }

    func documentConfiguration(levelsOfUndo: Int) -> Document.Configuration {
        var c = Document.Configuration()
        c.typingPause = configuration.typingPause
        c.levelsOfUndo = levelsOfUndo
        return c
    }

    func listDocuments() -> [UInt8] {
        let handles = documents.withLock { $0.values.sorted { $0.id < $1.id } }
        var w = JSONWriter(capacity: 64 * handles.count + 2)
        w.beginArray()
        for h in handles {
            let item = h.state.withLock { st in
                var one = JSONWriter(capacity: 96)
                DocumentJSON.summary(id: h.id, state: st, to: &one)
                return one.bytes
            }
            w.raw(item)
        }
        w.endArray()
        return w.bytes
    }

    func getDocument(_ req: HTTPRequest, asText: Bool) throws(APIError) -> HTTPResponse {
        let scope = try session(of: req).map { UndoScope.session($0.id) } ?? .document
        let handle = try document(req.parameters["id"] ?? "")
        return handle.state.withLock { st -> HTTPResponse in
            // The committed state: a change still waiting for its commit is not shown yet.
            let etag = "\"\(st.committedRevision)\""
            if let inm = req.headers["If-None-Match"], EntityTag.matches(ifNoneMatch: inm, etag: etag) {
                return HTTPResponse(status: .notModified, headers: ["ETag": etag])
            }
            if asText {
                return HTTPResponse(status: .ok, contentType: "text/plain; charset=utf-8",
                                    body: Array(st.committedRope.description.utf8), headers: ["ETag": etag])
            }
            return .json(DocumentJSON.document(id: handle.id, state: st, scope: scope), headers: ["ETag": etag])
        }
    }

    func deleteDocument(_ req: HTTPRequest, _ res: HTTPResponder) {
        let id = req.parameters["id"] ?? ""
        let handle: DocumentHandle
        do throws(APIError) {
            _ = try session(of: req)
            handle = try document(id)
        } catch {
            return res.send(error.response)
        }
        // With its pending undo state: a new document under this id must not replay it.
        store.submit([.deleteDocument(id), .setMeta(Self.pendingKey(id), nil)]) { [self] result in
            if case .failure(let error) = result {
                logger.error("could not delete document \(id): \(error)")
                return res.send(APIError.storageFailing.response)
            }
            res.send(forget(handle))
        }
    }

    /// Drops a deleted document from memory: its long-polls get 404 and its streams end.
    private func forget(_ handle: DocumentHandle) -> HTTPResponse {
        let id = handle.id
        let pollers: [DocumentState.Poller] = handle.state.withLock { st in
            st.deleted = true
            defer { st.pollers.removeAll() }
            return st.pollers
        }
        documents.withLock { _ = $0.removeValue(forKey: id) }
        for p in pollers { p.responder.send(APIError.notFound("document '\(id)'").response) }
        handle.events.closeAll()
        return HTTPResponse(status: .noContent)
    }

    /// What a PATCH asks to change.
    struct DocumentPatch: Sendable {
        var title: String?
        var editingDisabled: Bool?
        var secure: Bool?
        var levels: Int?
    }

    func patchDocument(_ req: HTTPRequest, _ res: HTTPResponder) {
        let handle: DocumentHandle, patch: DocumentPatch
        do throws(APIError) {
            _ = try session(of: req)
            handle = try document(req.parameters["id"] ?? "")
            patch = try documentPatch(req)
        } catch {
            return res.send(error.response)
        }
        // Stored with the document's lock released (the store's writer takes that lock to
        // publish commits); `checkpoints` keeps concurrent PATCHes in one order. The document's
        // levelsOfUndo goes into its undo history, so it is journaled with the metadata as one
        // unit: applied first (the journal event is the store's record of it), and if the unit
        // is refused the document goes back to what the store holds. The rest changes only
        // once stored.
        handle.checkpoints.run { [self] done in
            let finish: @Sendable (HTTPResponse) -> Void = { response in
                done()
                res.send(response)
            }
            let submitted: (StoredDocument, Bool, StoreTicket)
            do throws(APIError) { submitted = try submitPatch(handle, patch) } catch { return finish(error.response) }
            let (stored, journaled, ticket) = submitted
            whenStored(ticket, of: handle, journaled: journaled, doing: "update") { [self] result in
                if case .failure(let error) = result { return finish(error.response) }
                let updated = handle.state.withLock { st -> ([UInt8], Bool, Bool)? in
                    if st.deleted { return nil }
                    let before = st.condition
                    let titleBefore = st.title
                    st.title = stored.title
                    if let editingDisabled = patch.editingDisabled { st.editingDisabled = editingDisabled }
                    if let secure = patch.secure { st.secure = secure }
                    st.modified = stored.modified
                    return (DocumentJSON.document(id: handle.id, state: st), before != st.condition, titleBefore != st.title)
                }
                guard let (json, stateChanged, titleChanged) = updated else {
                    return finish(APIError.notFound("document '\(handle.id)'").response)
                }
                if stateChanged { broadcastState(handle) }
                if titleChanged { broadcastTitle(handle) }
                finish(.json(json))
            }
        }
    }

    private func documentPatch(_ req: HTTPRequest) throws(APIError) -> DocumentPatch {
        let body = try RequestBody.object(req, allowEmpty: false)
        try body.allowOnly(["title", "editingDisabled", "secure", "levelsOfUndo"])
        let title = try body.string("title")
        if let title, title.isEmpty || title.count > 500 { throw .invalidField("title", "must be 1 to 500 characters") }
        let editingDisabled = try body.bool("editingDisabled")
        let secure = try body.bool("secure")
        let levels = try body.int("levelsOfUndo")
        if let levels, levels < 0 { throw .invalidField("levelsOfUndo", "must be 0 (unlimited) or more") }
        return DocumentPatch(title: title, editingDisabled: editingDisabled, secure: secure, levels: levels)
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

    func broadcastState(_ handle: DocumentHandle) {
        let (rev, condition) = handle.state.withLock { ($0.committedRevision, $0.condition) }
        var w = JSONWriter(capacity: 48)
        w.beginObject()
        w.key("state"); w.string(condition.rawValue)
        w.endObject()
        handle.events.send(ServerSentEvents.frame(id: rev, event: "state", data: w.bytes))
    }

    /// A renamed document's new title, so every open window shows it at once.
    func broadcastTitle(_ handle: DocumentHandle) {
        let (rev, title) = handle.state.withLock { ($0.committedRevision, $0.title) }
        var w = JSONWriter(capacity: 32 + title.utf8.count)
        w.beginObject()
        w.key("title"); w.string(title)
        w.endObject()
        handle.events.send(ServerSentEvents.frame(id: rev, event: "title", data: w.bytes))
    }

    func replaceText(_ req: HTTPRequest, _ res: HTTPResponder) {
        let session: Session?
        let handle: DocumentHandle
        do throws(APIError) {
            session = try self.session(of: req)
            handle = try document(req.parameters["id"] ?? "")
            // curl --data-binary labels the bytes x-www-form-urlencoded unless told otherwise.
            if let type = req.mediaType,
               !(type.hasPrefix("text/") || type == "application/octet-stream" || type == "application/x-www-form-urlencoded") {
                throw APIError.unsupportedMediaType("text/plain")
            }
        } catch {
            res.send(error.response)
            return
        }
        guard let text = req.bodyText else {
            res.send(APIError.badRequest("the body is not valid UTF-8", code: "invalid_text").response)
            return
        }
        performChange(handle, request: req, responder: res, session: session) { st throws(APIError) in
            let etag = "\"\(st.document.revision)\""
            if let im = req.headers["If-Match"], !Self.ifMatch(im, matches: etag) {
                throw APIError(.preconditionFailed, "precondition_failed", "the document is at \(etag), not \(im)")
            }
            let op: TextOperation
            do throws(OperationError) { op = try TextDiff.replacement(from: st.document.text, to: text) } catch { throw .operation(error) }
            return try applyEdit(&st, op: op, base: nil, session: session,
                                 options: EditOptions(actionName: "Replace", undoable: true, newGroup: true))
        }
    }

    /// `If-Match` compares strongly (RFC 9110 §13.1.1): a weak tag `W/"7"` never matches,
    /// since a write must not rest on "semantically the same" text. `*` matches any
    /// existing document; a list matches if one of its tags does.
    static func ifMatch(_ header: String, matches etag: String) -> Bool {
        var rest = Substring(header)
        while true {
            while let c = rest.first, c == " " || c == "\t" || c == "," { rest.removeFirst() }
            guard !rest.isEmpty else { return false }
            if rest.first == "*" { return true }
            var weak = false
            if rest.hasPrefix("W/") { weak = true; rest = rest.dropFirst(2) }
            guard rest.first == "\"" else { return false }
            let body = rest.dropFirst()
            guard let close = body.firstIndex(of: "\"") else { return false }
            let tag = rest[rest.startIndex...close]
            rest = body[body.index(after: close)...]
            if !weak && tag == etag { return true }
        }
    }
}
