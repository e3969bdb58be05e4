import TandemCore
import TandemHTTP
import TandemStore

/// The endpoints of `HistoryController`: paths, OpenAPI descriptions and handlers.
extension HistoryController {
    var endpoints: [Endpoint] {
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
                            Endpoint.error(409, "Nothing to undo (nothing_to_undo), or undo groups nested more than one level deep are open (group_open)"),
                            Endpoint.error(422, "Mapping the group through the changes made since is more work than one undo may ask (undo_too_large)")]
                    + changeErrors.map { $0.status == 403 ? Endpoint.error(403, "Editing is disabled, or group= names another session's group (not_your_group)")
                                        : $0.status == 404 ? Endpoint.error(404, "No such document, or no stack holds group= (group_not_found)") : $0 },
                handler: { [self] req, ctx, res in undoOrRedo(req, ctx, res, redo: false) }
            ),
            Endpoint(
                method: .post, path: "/documents/{id}/redo", operationID: "redo",
                summary: "Redo the latest undone group of the scope", tag: "Undo",
                parameters: [scope, Endpoint.header("Idempotency-Key", "Makes a resend safe")],
                requestBody: Endpoint.jsonBody(Schemas.object([], required: []), required: false),
                responses: [Endpoint.json(200, "The redo as applied", Schemas.ref("UndoResult")),
                            Endpoint.error(409, "Nothing to redo"),
                            Endpoint.error(422, "Mapping the group through the changes made since is more work than one redo may ask (undo_too_large)")] + changeErrors,
                handler: { [self] req, ctx, res in undoOrRedo(req, ctx, res, redo: true) }
            ),
            Endpoint(
                method: .get, path: "/documents/{id}/history", operationID: "getHistory",
                summary: "Undo and redo state of the scope, with action names and menu titles", tag: "Undo",
                parameters: [scope],
                responses: [Endpoint.json(200, "The history", Schemas.ref("History")),
                            Endpoint.error(400, "Bad scope"), Endpoint.error(401, "Bad token"), Endpoint.error(404, "No such document")],
                handler: { [self] req, ctx, res in
                    res.respond { () throws(APIError) in
                        let (handle, scope, _) = try historyTarget(req, ctx)
                        return .json(Self.historyJSON(service.history(scope: scope, in: handle)))
                    }
                }
            ),
            Endpoint(
                method: .patch, path: "/documents/{id}/history", operationID: "updateHistory",
                summary: "Name the latest group (setActionName), mark it discardable (setActionIsDiscardable) or cap the stack (levelsOfUndo)", tag: "Undo",
                parameters: [scope],
                requestBody: Endpoint.jsonBody(Schemas.object([("actionName", ["type": "string", "maxLength": 200]), ("levelsOfUndo", Schemas.nonNegative),
                                                               ("actionIsDiscardable", Schemas.boolean)], required: [])),
                responses: [Endpoint.json(200, "The history", Schemas.ref("History")),
                            Endpoint.error(400, "Malformed JSON, field or scope"), Endpoint.error(401, "Bad token"),
                            Endpoint.error(404, "No such document"), Endpoint.error(409, "Nothing to name or mark"),
                            Endpoint.error(413, "A body of more than 64 KiB"), Endpoint.error(415, "Body is not JSON"),
                            Endpoint.error(503, "The store cannot save")],
                handler: { [self] req, ctx, res in patchHistory(req, ctx, res) }
            ),
            Endpoint(
                method: .delete, path: "/documents/{id}/history", operationID: "clearHistory",
                summary: "removeAllActions for the scope", tag: "Undo",
                parameters: [scope],
                responses: [Endpoint.json(200, "The history", Schemas.ref("History")),
                            Endpoint.error(400, "Bad scope"), Endpoint.error(401, "Bad token"), Endpoint.error(404, "No such document"),
                            Endpoint.error(503, "The store cannot save")],
                handler: { [self] req, ctx, res in
                    do throws(APIError) {
                        let (handle, scope, _) = try historyTarget(req, ctx)
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
                            Endpoint.error(503, "The store cannot save"), Endpoint.error(507, "64 groups are open one inside another")],
                handler: { [self] req, ctx, res in grouping(req, ctx, res, begin: true) }
            ),
            Endpoint(
                method: .delete, path: "/documents/{id}/history/groups", operationID: "endUndoGrouping",
                summary: "endUndoGrouping for the session", tag: "Undo",
                responses: [Endpoint.json(200, "The grouping level now", Schemas.ref("GroupingLevel")),
                            Endpoint.error(401, "A session is needed"), Endpoint.error(404, "No such document"),
                            Endpoint.error(409, "No group is open"), Endpoint.error(503, "The store cannot save")],
                handler: { [self] req, ctx, res in grouping(req, ctx, res, begin: false) }
            ),
            Endpoint(
                method: .post, path: "/documents/{id}/history/registration/disable", operationID: "disableUndoRegistration",
                summary: "disableUndoRegistration for the session's own edits (nestable)", tag: "Undo",
                parameters: [Endpoint.header("Idempotency-Key", "Makes a resend safe")],
                requestBody: Endpoint.jsonBody(Schemas.object([], required: []), required: false),
                responses: [Endpoint.json(200, "The session's registration now", Schemas.ref("UndoRegistration")),
                            Endpoint.error(400, "A body other than {}"), Endpoint.error(401, "A session is needed"),
                            Endpoint.error(404, "No such document"), Endpoint.error(503, "The store cannot save"),
                            Endpoint.error(507, "64 disables wait for their enable")],
                handler: { [self] req, ctx, res in registration(req, ctx, res, enable: false) }
            ),
            Endpoint(
                method: .post, path: "/documents/{id}/history/registration/enable", operationID: "enableUndoRegistration",
                summary: "enableUndoRegistration for the session: undoes one disable", tag: "Undo",
                parameters: [Endpoint.header("Idempotency-Key", "Makes a resend safe")],
                requestBody: Endpoint.jsonBody(Schemas.object([], required: []), required: false),
                responses: [Endpoint.json(200, "The session's registration now", Schemas.ref("UndoRegistration")),
                            Endpoint.error(400, "A body other than {}"), Endpoint.error(401, "A session is needed"),
                            Endpoint.error(404, "No such document"),
                            Endpoint.error(409, "Registration is not disabled (undo_registration_not_disabled)"),
                            Endpoint.error(503, "The store cannot save")],
                handler: { [self] req, ctx, res in registration(req, ctx, res, enable: true) }
            ),
        ]
    }
}
