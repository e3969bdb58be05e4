import TandemCore
import TandemHTTP
import TandemStore

extension ServerContext {
    var historyEndpoints: [Endpoint] {
        let scope = Endpoint.query("scope", ["type": "string", "enum": ["session", "document"]],
                                   "session (default with a token) or document (default without)")
        let changeErrors: [Endpoint.Response] = [
            Endpoint.error(400, "Bad scope"),
            Endpoint.error(401, "Bad token, or scope=session without one"),
            Endpoint.error(403, "Editing is disabled"),
            Endpoint.error(404, "No such document"),
            Endpoint.error(503, "The store cannot save"),
        ]
        return [
            Endpoint(
                method: .post, path: "/documents/{id}/undo", operationID: "undo",
                summary: "Undo one group: the session's own latest (scope=session) or anyone's (scope=document)", tag: "Undo",
                parameters: [scope,
                             Endpoint.query("group", ["type": "integer", "minimum": 1, "maximum": .integer(Int(Int32.max))],
                                            "Selective undo: the id of a group of your own undo stack (scope=session), undone wherever it sits"),
                             Endpoint.query("nested", ["type": "boolean"], "true: undoNestedGroup (the last closed group, without closing an open one)"),
                             Endpoint.header("Idempotency-Key", "Makes a resend safe")],
                requestBody: Endpoint.jsonBody(Schemas.object([], required: []), required: false),
                responses: [Endpoint.json(200, "The undo as applied", Schemas.ref("UndoResult")),
                            Endpoint.error(409, "Nothing to undo (nothing_to_undo), or undo groups nested more than one level deep are open (group_open)")]
                    + changeErrors.map { $0.status == 403 ? Endpoint.error(403, "Editing is disabled, or group= names another session's group (not_your_group)")
                                        : $0.status == 404 ? Endpoint.error(404, "No such document, or no stack holds group= (group_not_found)") : $0 },
                handler: { [self] req, res in undoOrRedo(req, res, redo: false) }
            ),
            Endpoint(
                method: .post, path: "/documents/{id}/redo", operationID: "redo",
                summary: "Redo the latest undone group of the scope", tag: "Undo",
                parameters: [scope, Endpoint.header("Idempotency-Key", "Makes a resend safe")],
                requestBody: Endpoint.jsonBody(Schemas.object([], required: []), required: false),
                responses: [Endpoint.json(200, "The redo as applied", Schemas.ref("UndoResult")),
                            Endpoint.error(409, "Nothing to redo")] + changeErrors,
                handler: { [self] req, res in undoOrRedo(req, res, redo: true) }
            ),
            Endpoint(
                method: .get, path: "/documents/{id}/history", operationID: "getHistory",
                summary: "Undo and redo state of the scope, with action names and menu titles", tag: "Undo",
                parameters: [scope],
                responses: [Endpoint.json(200, "The history", Schemas.ref("History")),
                            Endpoint.error(400, "Bad scope"), Endpoint.error(401, "Bad token"), Endpoint.error(404, "No such document")],
                handler: { [self] req, res in
                    res.respond { () throws(APIError) in
                        let (handle, scope, _) = try historyTarget(req)
                        return .json(Self.historyJSON(service.history(scope: scope, in: handle)))
                    }
                }
            ),
            Endpoint(
                method: .patch, path: "/documents/{id}/history", operationID: "updateHistory",
                summary: "Name the latest group (setActionName) or cap the stack (levelsOfUndo)", tag: "Undo",
                parameters: [scope],
                requestBody: Endpoint.jsonBody(Schemas.object([("actionName", ["type": "string", "maxLength": 200]), ("levelsOfUndo", Schemas.nonNegative)], required: [])),
                responses: [Endpoint.json(200, "The history", Schemas.ref("History")),
                            Endpoint.error(400, "Malformed JSON, field or scope"), Endpoint.error(401, "Bad token"),
                            Endpoint.error(404, "No such document"), Endpoint.error(409, "Nothing to name"), Endpoint.error(415, "Body is not JSON"),
                            Endpoint.error(503, "The store cannot save")],
                handler: { [self] req, res in patchHistory(req, res) }
            ),
            Endpoint(
                method: .delete, path: "/documents/{id}/history", operationID: "clearHistory",
                summary: "removeAllActions for the scope", tag: "Undo",
                parameters: [scope],
                responses: [Endpoint.json(200, "The history", Schemas.ref("History")),
                            Endpoint.error(400, "Bad scope"), Endpoint.error(401, "Bad token"), Endpoint.error(404, "No such document"),
                            Endpoint.error(503, "The store cannot save")],
                handler: { [self] req, res in
                    do throws(APIError) {
                        let (handle, scope, _) = try historyTarget(req)
                        service.clearHistory(scope: scope, in: handle) { res.send($0) { .json(Self.historyJSON($0)) } }
                    } catch {
                        res.send(error.response)
                    }
                }
            ),
            Endpoint(
                method: .post, path: "/documents/{id}/history/groups", operationID: "beginUndoGrouping",
                summary: "beginUndoGrouping for the session (nestable)", tag: "Undo",
                responses: [Endpoint.json(200, "The grouping level now", Schemas.ref("GroupingLevel")),
                            Endpoint.error(401, "A session is needed"), Endpoint.error(404, "No such document"),
                            Endpoint.error(503, "The store cannot save")],
                handler: { [self] req, res in grouping(req, res, begin: true) }
            ),
            Endpoint(
                method: .delete, path: "/documents/{id}/history/groups", operationID: "endUndoGrouping",
                summary: "endUndoGrouping for the session", tag: "Undo",
                responses: [Endpoint.json(200, "The grouping level now", Schemas.ref("GroupingLevel")),
                            Endpoint.error(401, "A session is needed"), Endpoint.error(404, "No such document"),
                            Endpoint.error(409, "No group is open"), Endpoint.error(503, "The store cannot save")],
                handler: { [self] req, res in grouping(req, res, begin: false) }
            ),
        ]
    }

    /// The document, the scope the request means, and its session.
    func historyTarget(_ req: HTTPRequest) throws(APIError) -> (DocumentHandle, UndoScope, Session?) {
        let session = try self.session(of: req)
        let handle = try document(req.parameters["id"] ?? "")
        switch req.queryValue("scope") {
        case nil:
            return (handle, session.map { .session($0.id) } ?? .document, session)
        case "session"?:
            guard let session else { throw .sessionRequired("scope=session") }
            return (handle, .session(session.id), session)
        case "document"?:
            return (handle, .document, session)
        case let other?:
            throw .invalidField("scope", "must be session or document, not '\(other)'")
        }
    }

    static func historyJSON(_ history: UndoHistory) -> [UInt8] {
        var w = JSONWriter(capacity: 512)
        DocumentJSON.history(history, to: &w)
        return w.bytes
    }

    /// The undo (redo) a request asks for: its scope, its requester, and for an undo the
    /// `group` of a selective undo or `nested=true` for undoNestedGroup. Its time is set when
    /// it is performed.
    func undoRequest(_ req: HTTPRequest, redo: Bool) throws(APIError) -> (DocumentHandle, Session?, UndoRequest) {
        let (handle, scope, session) = try historyTarget(req)
        // The body, if any, is an empty object: a field it does not know is a typo, not a wish.
        try RequestBody.object(req).allowOnly([])
        var kind: UndoRequest.Kind = redo ? .redo : .undo
        switch req.queryValue("nested") {
        case nil, "false"?: break
        case "true"? where !redo: kind = .undoNestedGroup
        case "true"?: throw .invalidField("nested", "applies to undo only")
        case let other?: throw .invalidField("nested", "must be true or false, not '\(other)'")
        }
        var group: Int?
        if let raw = req.queryValue("group") {
            guard !redo else { throw .invalidField("group", "applies to undo only: redo takes the latest undone group") }
            guard kind == .undo else { throw .invalidField("group", "cannot be combined with nested=true") }
            guard let id = Int(raw), id >= 1, id <= Int(Int32.max) else {
                throw .invalidField("group", "must be a group id from the history (1 to \(Int32.max))")
            }
            guard session != nil else { throw .sessionRequired("a selective undo (group=)") }
            guard case .session = scope else { throw .invalidField("group", "names a group of your own stack: it takes scope=session") }
            group = id
        }
        return (handle, session, UndoRequest(kind, scope: scope, requester: session?.id, group: group, time: 0))
    }

    func undoOrRedo(_ req: HTTPRequest, _ res: HTTPResponder, redo: Bool) {
        let handle: DocumentHandle, session: Session?, request: UndoRequest
        do throws(APIError) {
            (handle, session, request) = try undoRequest(req, redo: redo)
        } catch {
            return res.send(error.response)
        }
        service.perform(request, in: handle, by: session) { res.send($0) { .json(Self.undoJSON($0)) } }
    }

    static func undoJSON(_ r: UndoResult) -> [UInt8] {
        let change = r.change
        var w = JSONWriter(capacity: 768)
        w.beginObject()
        w.key("revision"); w.int(change.revision)
        w.key("ops"); CompactOperation.write(change.operation, to: &w)
        w.key("actionName"); w.string(change.actionName)
        w.key("session"); w.optionalString(change.session)
        DocumentJSON.reverts(change, to: &w)
        w.key("skipped"); w.beginArray()
        for group in change.skipped {
            w.beginObject(); w.key("actionName"); w.string(group.actionName); w.key("revision"); w.int(group.revision); w.endObject()
        }
        w.endArray()
        let range = change.range ?? 0..<0
        w.key("range"); w.beginObject(); w.key("from"); w.int(range.lowerBound); w.key("to"); w.int(range.upperBound); w.endObject()
        w.key("history"); DocumentJSON.history(r.history, to: &w)
        w.key("selection"); DocumentJSON.selection(r.selection, to: &w)
        w.endObject()
        return w.bytes
    }

    func patchHistory(_ req: HTTPRequest, _ res: HTTPResponder) {
        let handle: DocumentHandle, scope: UndoScope, patch: HistoryPatch
        do throws(APIError) {
            (handle, scope, _) = try historyTarget(req)
            let body = try RequestBody.object(req, allowEmpty: false)
            try body.allowOnly(["actionName", "levelsOfUndo"])
            let name = try body.string("actionName")
            if let name, name.count > 200 { throw .invalidField("actionName", "must be at most 200 characters") }
            patch = HistoryPatch(actionName: name, levelsOfUndo: try body.int("levelsOfUndo"))
            if let levels = patch.levelsOfUndo, levels < 0 { throw .invalidField("levelsOfUndo", "must be 0 (unlimited) or more") }
        } catch {
            return res.send(error.response)
        }
        service.updateHistory(patch, scope: scope, in: handle) { res.send($0) { .json(Self.historyJSON($0)) } }
    }

    func grouping(_ req: HTTPRequest, _ res: HTTPResponder, begin: Bool) {
        let session: Session, handle: DocumentHandle
        do throws(APIError) {
            session = try requireSession(of: req, for: "undo grouping")
            handle = try document(req.parameters["id"] ?? "")
        } catch {
            return res.send(error.response)
        }
        service.grouping(begin: begin, in: handle, by: session) { result in
            res.send(result) { level in
                var w = JSONWriter(capacity: 24)
                w.beginObject(); w.key("groupingLevel"); w.int(level); w.endObject()
                return .json(w.bytes)
            }
        }
    }
}
