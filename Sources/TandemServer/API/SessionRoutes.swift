import TandemHTTP
import TandemStore

extension ServerContext {
    var sessionEndpoints: [Endpoint] {
        [
            Endpoint(
                method: .post, path: "/sessions", operationID: "createSession",
                summary: "Start a session; the token is shown only in this answer", tag: "Sessions",
                requestBody: Endpoint.jsonBody(Schemas.object([("name", ["type": "string", "maxLength": 100])], required: []), required: false),
                responses: [
                    Endpoint.json(201, "The new session and its bearer token", Schemas.ref("SessionCreated")),
                    Endpoint.error(400, "Malformed JSON or field"),
                    Endpoint.error(415, "Body is not JSON"),
                    Endpoint.error(503, "The store cannot save the session"),
                ],
                handler: { [self] req, res in res.respond(on: storeWaits) { [self] () throws(APIError) in try createSession(req) } }
            ),
            Endpoint(
                method: .get, path: "/sessions/me", operationID: "getSession",
                summary: "The calling session", tag: "Sessions",
                responses: [
                    Endpoint.json(200, "The session", Schemas.ref("Session")),
                    Endpoint.error(401, "No token, or a wrong or expired one"),
                ],
                handler: { [self] req, res in
                    res.respond { () throws(APIError) in
                        let s = try requireSession(of: req, for: "GET /sessions/me")
                        return .json(sessionJSON(s, token: nil))
                    }
                }
            ),
            Endpoint(
                method: .patch, path: "/sessions/me", operationID: "renameSession",
                summary: "Rename the calling session; its token, undo history and pasteboards stay", tag: "Sessions",
                requestBody: Endpoint.jsonBody(Schemas.object([("name", ["type": "string", "minLength": 1, "maxLength": 100])], required: ["name"])),
                responses: [
                    Endpoint.json(200, "The renamed session", Schemas.ref("Session")),
                    Endpoint.error(400, "Malformed JSON, or a missing or bad name"),
                    Endpoint.error(401, "No token, or a wrong or expired one"),
                    Endpoint.error(415, "Body is not JSON"),
                    Endpoint.error(503, "The store cannot save the name: the old one stays"),
                ],
                handler: { [self] req, res in res.respond(on: storeWaits) { [self] () throws(APIError) in try renameSession(req) } }
            ),
            Endpoint(
                method: .delete, path: "/sessions/me", operationID: "endSession",
                summary: "End the session: its undo contexts are cleared and its non-persistent pasteboards removed", tag: "Sessions",
                responses: [
                    Endpoint.Response(status: 204, description: "Ended"),
                    Endpoint.error(401, "No token, or a wrong or expired one"),
                    Endpoint.error(503, "The store cannot save the end: the session goes on"),
                ],
                handler: { [self] req, res in
                    res.respond(on: storeWaits) { [self] () throws(APIError) in
                        let s = try requireSession(of: req, for: "DELETE /sessions/me")
                        try endSession(s.id)
                        return HTTPResponse(status: .noContent)
                    }
                }
            ),
        ]
    }

    func createSession(_ req: HTTPRequest) throws(APIError) -> HTTPResponse {
        let body = try RequestBody.object(req)
        try body.allowOnly(["name"])
        let name = try body.string("name")
        if let name, name.isEmpty || name.count > 100 {
            throw .invalidField("name", "must be 1 to 100 characters")
        }
        let (session, token) = sessions.create(name: name, now: now())
        do {
            try store.upsertSession(StoredSession(
                id: session.id, tokenHash: session.tokenHash, name: session.name,
                color: session.color, created: session.created, lastSeen: session.lastSeen))
        } catch {
            sessions.remove(id: session.id)
            logger.error("could not store session: \(error)")
            throw .storageFailing
        }
        metrics.increment("tandem_sessions_created_total")
        return .json(sessionJSON(session, token: token), status: .created)
    }

    /// A new name, stored before it is answered or shown: refused, the old name stays.
    func renameSession(_ req: HTTPRequest) throws(APIError) -> HTTPResponse {
        let s = try requireSession(of: req, for: "PATCH /sessions/me")
        let body = try RequestBody.object(req, allowEmpty: false)
        try body.allowOnly(["name"])
        guard let name = try body.string("name"), !name.isEmpty, name.count <= 100 else {
            throw .invalidField("name", "must be 1 to 100 characters")
        }
        do {
            try store.upsertSession(StoredSession(
                id: s.id, tokenHash: s.tokenHash, name: name, color: s.color, created: s.created, lastSeen: s.lastSeen))
        } catch {
            logger.error("could not store the name of session \(s.id): \(error)")
            throw .storageFailing
        }
        guard let renamed = sessions.rename(id: s.id, to: name) else {
            // Ended while the name was stored: the row written back must not outlive it.
            try? store.deleteSession(s.id)
            throw .unauthorized
        }
        // Everyone looking at a document with this session in it sees the new name.
        let present = service.documents.withLock { Array($0.values) }.filter { h in
            h.events.sessions.contains(s.id) || h.state.withLock { $0.document.selections[s.id] != nil }
        }
        for handle in present { service.broadcastPresence(handle) }
        return .json(sessionJSON(renamed, token: nil))
    }

    /// Ends a session everywhere (see `storeSessionEnd`), answered only once the end is
    /// stored: refused, the session goes on as before, token and undo groups included.
    func endSession(_ id: String) throws(APIError) {
        // Out of the registry first: no request of it starts while its end is stored.
        guard let removed = sessions.removeReinstatable(id: id) else { return }
        do {
            try storeSessionEnd(id, rollBack: true)
        } catch {
            sessions.reinstate(removed)
            logger.error("could not store the end of session \(id): \(error)")
            throw .storageFailing
        }
    }

    func sessionJSON(_ s: Session, token: String?) -> [UInt8] {
        var w = JSONWriter(capacity: 160)
        w.beginObject()
        w.key("id"); w.string(s.id)
        if let token { w.key("token"); w.string(token) }
        w.key("name"); w.string(s.name)
        w.key("color"); w.string(s.color)
        w.endObject()
        return w.bytes
    }
}
