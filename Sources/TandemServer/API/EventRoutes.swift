import TandemCore
import TandemHTTP

extension ServerContext {
    var eventEndpoints: [Endpoint] {
        [
            Endpoint(
                method: .get, path: "/documents/{id}/events", operationID: "documentEvents",
                summary: "Server-Sent Events: change, presence, history, saved, state, title, pasteboard; id is the revision", tag: "Editing",
                parameters: [Endpoint.header("Last-Event-ID", "Resume: the changes after this revision are replayed first"),
                             Endpoint.query("lastEventId", Schemas.nonNegative, "Same as Last-Event-ID, for clients that cannot set headers")],
                responses: [
                    Endpoint.Response(status: 200, description: "An event stream, gzipped write by write when Accept-Encoding allows gzip", schema: Schemas.serverSentEvent(
                        ["change", "presence", "history", "saved", "state", "title", "pasteboard", "reset"]), mediaType: "text/event-stream"),
                    Endpoint.error(400, "Bad Last-Event-ID"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(404, "No such document"),
                ],
                handler: { [self] req, res in documentEvents(req, res) }
            ),
            Endpoint(
                method: .put, path: "/documents/{id}/selection", operationID: "setSelection",
                summary: "The session's selection, kept in place through everyone's changes", tag: "Editing",
                requestBody: Endpoint.jsonBody(Schemas.object(
                    [("anchor", Schemas.nonNegative), ("head", Schemas.nonNegative), ("base", Schemas.nonNegative)],
                    required: ["anchor", "head"])),
                responses: [
                    Endpoint.json(200, "The selection, in current positions (mapped from base when given)", Schemas.ref("Selection")),
                    Endpoint.error(400, "Malformed JSON or field"),
                    Endpoint.error(401, "A session is needed"),
                    Endpoint.error(404, "No such document"),
                    Endpoint.error(410, "base is older than the kept log"),
                    Endpoint.error(415, "Body is not JSON"),
                    Endpoint.error(422, "Out of range, inside a surrogate pair, or base in the future"),
                ],
                handler: { [self] req, res in res.respond { () throws(APIError) in try putSelection(req) } }
            ),
            Endpoint(
                method: .get, path: "/documents/{id}/presence", operationID: "presence",
                summary: "Sessions in the document with name, color and selection", tag: "Editing",
                responses: [
                    Endpoint.json(200, "Sessions", Schemas.array(Schemas.object([
                        ("id", Schemas.string), ("name", Schemas.string), ("color", Schemas.string),
                        ("selection", ["oneOf": [Schemas.ref("Selection"), ["type": "null"]]]),
                    ], required: ["id", "name", "color", "selection"]))),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(404, "No such document"),
                ],
                handler: { [self] req, res in
                    res.respond { () throws(APIError) in
                        _ = try session(of: req)
                        let handle = try document(req.parameters["id"] ?? "")
                        return .json(service.presenceJSON(handle))
                    }
                }
            ),
        ]
    }

    func documentEvents(_ req: HTTPRequest, _ res: HTTPResponder) {
        let session: Session?
        let handle: DocumentHandle
        var lastEventID: Int?
        do throws(APIError) {
            session = try self.session(of: req)
            handle = try document(req.parameters["id"] ?? "")
            if let raw = req.headers["Last-Event-ID"] ?? req.queryValue("lastEventId") {
                guard let v = Int(raw.trimmingSpacesAndTabs), v >= 0 else {
                    throw APIError.invalidField("Last-Event-ID", "must be a revision")
                }
                lastEventID = v
            }
        } catch {
            res.send(error.response)
            return
        }
        let resumeAfter = lastEventID
        res.send(HTTPResponse(status: .ok, headers: ServerSentEvents.headers, body: .stream { [self] writer in
            writer.write(ServerSentEvents.preamble)
            let current: Int = handle.state.withLock { st in
                if let last = resumeAfter, last < st.committedRevision {
                    if last < st.document.firstAvailableRevision - 1 {
                        // Too far behind to replay: the client must reload the document.
                        writer.write(ServerSentEvents.frame(id: st.committedRevision, event: "reset",
                                                            data: Array("{\"reason\":\"revision_trimmed\"}".utf8)))
                    } else if let missed = try? st.document.changes(since: last) {
                        // The events the live stream sent (each change, and each session's
                        // last history event), so a resumed client's undo menu follows the
                        // changes it missed.
                        var batch = JSONWriter(capacity: 256)
                        ServerSentEvents.appendChangeEvents(missed.filter { $0.revision <= st.committedRevision }
                            .map { .init(change: $0, notification: Self.notification(of: $0.kind)) }, to: &batch)
                        writer.write(batch.bytes)
                    }
                }
                if resumeAfter != nil {
                    // A state change (locked, saving error) may have been missed too.
                    var w = JSONWriter(capacity: 48)
                    w.beginObject()
                    w.key("state"); w.string(st.condition.rawValue)
                    w.endObject()
                    writer.write(ServerSentEvents.frame(id: st.committedRevision, event: "state", data: w.bytes))
                }
                handle.events.add(writer, session: session?.id, revision: st.committedRevision)
                return st.committedRevision
            }
            // A session joining changes the presence everyone sees, the newcomer included: one
            // broadcast tells them all (it used to get the list twice, first on its own).
            if session != nil {
                service.broadcastPresence(handle)
            } else {
                writer.write(ServerSentEvents.frame(id: current, event: "presence", data: service.presenceJSON(handle)))
            }
            writer.onClose { [self] in if session != nil { service.broadcastPresence(handle) } }
        }))
    }

    /// The undo manager notification a change of this kind was announced with.
    static func notification(of kind: ChangeKind) -> String {
        switch kind {
        case .edit: "checkpoint"
        case .undo: "didUndo"
        case .redo: "didRedo"
        }
    }

    func putSelection(_ req: HTTPRequest) throws(APIError) -> HTTPResponse {
        let session = try requireSession(of: req, for: "a selection")
        let handle = try document(req.parameters["id"] ?? "")
        let body = try RequestBody.object(req, allowEmpty: false)
        try body.allowOnly(["anchor", "head", "base"])
        guard let anchor = try body.int("anchor"), let head = try body.int("head") else {
            throw .invalidField("anchor", "anchor and head are required integers")
        }
        let base = try body.int("base")
        if let base, base < 0 { throw .invalidField("base", "must be a revision") }
        let selection = try service.setSelection(Selection(anchor: anchor, head: head), base: base, in: handle, by: session)
        var w = JSONWriter(capacity: 32)
        DocumentJSON.selection(selection, to: &w)
        return .json(w.bytes)
    }
}

extension String {
    var trimmingSpacesAndTabs: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
