import TandemCore
import TandemHTTP
import TandemStore

extension ServerContext {
    var versionEndpoints: [Endpoint] {
        let version: JSONValue = Schemas.object([
            ("number", Schemas.nonNegative), ("revision", Schemas.nonNegative), ("time", Schemas.number),
            ("length", Schemas.nonNegative), ("name", Schemas.nullableString),
        ], required: ["number", "revision", "time", "length", "name"])
        return [
            Endpoint(
                method: .post, path: "/documents/{id}/save", operationID: "save",
                summary: "Checkpoint a version now; resets changeCount", tag: "Documents",
                responses: [
                    Endpoint.json(201, "The saved version", version),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(404, "No such document"),
                    Endpoint.error(503, "The store cannot save"),
                ],
                handler: { [self] req, res in
                    let handle: DocumentHandle
                    do throws(APIError) {
                        _ = try session(of: req)
                        handle = try document(req.parameters["id"] ?? "")
                    } catch {
                        return res.send(error.response)
                    }
                    saveVersion(handle, name: nil) { [self] result in
                        switch result {
                        case .success(let v): res.send(.json(versionJSON(v), status: .created))
                        case .failure(let error): res.send(error.response)
                        }
                    }
                }
            ),
            Endpoint(
                method: .get, path: "/documents/{id}/versions", operationID: "listVersions",
                summary: "Saved versions, oldest first", tag: "Documents",
                responses: [
                    Endpoint.json(200, "Versions", Schemas.array(version)),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(404, "No such document"),
                    Endpoint.error(503, "The store cannot be read"),
                ],
                handler: { [self] req, res in
                    res.respond { () throws(APIError) in
                        _ = try session(of: req)
                        let handle = try document(req.parameters["id"] ?? "")
                        let list: [StoredVersion]
                        do { list = try store.versions(document: handle.id) } catch { throw .storageFailing }
                        var w = JSONWriter(capacity: 64 * list.count + 2)
                        w.beginArray()
                        for v in list { w.raw(versionJSON(v)) }
                        w.endArray()
                        return .json(w.bytes)
                    }
                }
            ),
            Endpoint(
                method: .get, path: "/documents/{id}/versions/{n}/text", operationID: "getVersionText",
                summary: "A saved version's text", tag: "Documents",
                responses: [
                    Endpoint.Response(status: 200, description: "The text", schema: Schemas.string, mediaType: "text/plain"),
                    Endpoint.error(400, "n is not a number"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(404, "No such document or version"),
                ],
                handler: { [self] req, res in
                    res.respond { () throws(APIError) in
                        _ = try session(of: req)
                        let handle = try document(req.parameters["id"] ?? "")
                        let v = try storedVersion(handle, req.parameters["n"])
                        return HTTPResponse(status: .ok, contentType: "text/plain; charset=utf-8", body: Array(v.text.utf8))
                    }
                }
            ),
            Endpoint(
                method: .post, path: "/documents/{id}/versions/{n}/revert", operationID: "revertToVersion",
                summary: "Make the text that version's, as one undoable change named Revert to Version", tag: "Documents",
                parameters: [Endpoint.header("Idempotency-Key", "Makes a resend safe")],
                responses: [
                    Endpoint.json(200, "The change as applied", Schemas.ref("EditResult")),
                    Endpoint.error(400, "n is not a number"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(403, "Editing is disabled"),
                    Endpoint.error(404, "No such document or version"),
                    Endpoint.error(503, "The store cannot save"),
                ],
                handler: { [self] req, res in revert(req, res) }
            ),
        ]
    }

    func storedVersion(_ handle: DocumentHandle, _ raw: String?) throws(APIError) -> StoredVersion {
        guard let raw, let n = Int(raw), n >= 0 else { throw .invalidField("n", "must be a version number") }
        let v: StoredVersion?
        do { v = try store.version(document: handle.id, number: n) } catch { throw .storageFailing }
        guard let v else { throw .notFound("version \(n) of '\(handle.id)'") }
        return v
    }

    func versionJSON(_ v: StoredVersion) -> [UInt8] {
        var w = JSONWriter(capacity: 96)
        w.beginObject()
        w.key("number"); w.int(v.number)
        w.key("revision"); w.int(v.revision)
        w.key("time"); w.double(v.time)
        w.key("length"); w.int(v.text.utf16.count)
        w.key("name"); w.optionalString(v.name)
        w.endObject()
        return w.bytes
    }

    /// Writes the committed text as the next version and, if nothing changed meanwhile,
    /// clears the change count, both in one unit: answered once both are stored; refused,
    /// the count goes back to what the store holds (`storeFailed`) and no version exists.
    /// The document's lock is held to read, clear and submit, never while waiting; `then`
    /// gets the version once stored (on the store's writer thread), and no thread waits.
    func saveVersion(_ handle: DocumentHandle, name: String?, then: @escaping @Sendable (Result<StoredVersion, APIError>) -> Void) {
        handle.checkpoints.run { [self] done in
            let finish: @Sendable (Result<StoredVersion, APIError>) -> Void = { result in
                done()
                then(result)
            }
            let number: Int
            if let newest = handle.newestVersion.withLock({ $0 }) {
                number = newest + 1
            } else {
                do { number = (try store.versions(document: handle.id).last?.number ?? 0) + 1 } catch { return finish(.failure(.storageFailing)) }
            }
            let submitted: (StoredVersion, Bool, StoreTicket, Rope)
            do throws(APIError) {
                submitted = try submitVersion(handle, number: number, name: name)
            } catch {
                return finish(.failure(error))
            }
            let (v, cleared, ticket, savedRope) = submitted
            whenStored(ticket, of: handle, journaled: cleared, doing: "save a version of") { [self] result in
                if case .failure(let error) = result { return finish(.failure(error)) }
                handle.newestVersion.withLock { $0 = number }
                handle.state.withLock { st in
                    guard !st.deleted else { return }
                    (st.savedRope, st.savedRevision) = (savedRope, v.revision)
                    st.lastSaved = v.time
                    if cleared { st.lastSavedRevision = max(st.lastSavedRevision, v.revision) }
                    handle.events.send(ServerSentEvents.frame(id: st.committedRevision, event: "saved", data: versionJSON(v)))
                }
                finish(.success(v))
            }
        }
    }

    /// Under the document's lock: the committed text as version `number`, and the change
    /// count cleared with it when nothing is in flight, submitted as one unit.
    private func submitVersion(_ handle: DocumentHandle, number: Int, name: String?) throws(APIError) -> (StoredVersion, Bool, StoreTicket, Rope) {
        try handle.state.withLock { st throws(APIError) -> (StoredVersion, Bool, StoreTicket, Rope) in
                if st.deleted { throw .notFound("document '\(handle.id)'") }
                if st.savingError { throw .storageFailing }
                let rope = st.committedRope
                let v = StoredVersion(documentID: handle.id, number: number, revision: st.committedRevision,
                                      time: now(), text: rope.description, name: name)
                var writes: [StoreWrite] = [.addVersion(v)]
                // A change still waiting for its commit is not in the version: it stays unsaved.
                let cleared = st.document.revision == v.revision
                if cleared {
                    st.document.updateChangeCount(.cleared)
                    if let journal = pendingJournalWrite(st, id: handle.id) { writes.append(journal) }
                }
                let ticket = StoreTicket()
                store.submit(writes) { ticket.finish($0) }
                return (v, cleared, ticket, rope)
        }
    }

    /// The saveless model: a document with unsaved changes saves itself once it has been
    /// quiet for a moment, and at least every 30 s while someone keeps typing.
    func autosave(now: Double) {
        for handle in documents.withLock({ Array($0.values) }) {
            let due = handle.state.withLock { st -> Bool in
                guard st.hasUnsavedChanges, !st.savingError, st.committedRevision == st.document.revision else { return false }
                let quietFor = now - st.modified
                let sinceSave = now - (st.lastSaved ?? st.created)
                return quietFor >= 2 || sinceSave >= 30
            }
            guard due, handle.autosaving.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { continue }
            saveVersion(handle, name: nil) { _ in handle.autosaving.store(false, ordering: .releasing) }
        }
    }

    func revert(_ req: HTTPRequest, _ res: HTTPResponder) {
        let session: Session?
        let handle: DocumentHandle
        let version: StoredVersion
        do {
            session = try self.session(of: req)
            handle = try document(req.parameters["id"] ?? "")
            version = try storedVersion(handle, req.parameters["n"])
        } catch {
            res.send(error.response)
            return
        }
        performChange(handle, request: req, responder: res, session: session) { st throws(APIError) in
            let op: TextOperation
            do throws(OperationError) { op = try TextDiff.replacement(from: st.document.text, to: version.text) } catch { throw .operation(error) }
            return try applyEdit(&st, op: op, base: nil, session: session,
                                 options: EditOptions(actionName: "Revert to Version", undoable: true, newGroup: true))
        }
    }
}
