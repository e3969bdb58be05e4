import TandemCore
import TandemHTTP

/// The endpoints of `EditController`: paths, OpenAPI descriptions and handlers.
extension EditController {
    var endpoints: [Endpoint] {
        let editBody: JSONValue = [
            "oneOf": [
                Schemas.object([("base", Schemas.nonNegative), ("ops", Schemas.ref("Operation")), ("actionName", Schemas.string), ("undoable", Schemas.boolean), ("newGroup", Schemas.boolean), ("discardable", Schemas.boolean)], required: ["ops"]),
                Schemas.object([("base", Schemas.nonNegative), ("insert", Schemas.string), ("at", Schemas.nonNegative), ("actionName", Schemas.string), ("undoable", Schemas.boolean), ("newGroup", Schemas.boolean), ("discardable", Schemas.boolean)], required: ["insert", "at"]),
                Schemas.object([("base", Schemas.nonNegative), ("delete", Schemas.ref("Range")), ("actionName", Schemas.string), ("undoable", Schemas.boolean), ("newGroup", Schemas.boolean), ("discardable", Schemas.boolean)], required: ["delete"]),
                Schemas.object([("base", Schemas.nonNegative), ("replace", Schemas.ref("Range")), ("with", Schemas.string), ("actionName", Schemas.string), ("undoable", Schemas.boolean), ("newGroup", Schemas.boolean), ("discardable", Schemas.boolean)], required: ["replace", "with"]),
            ],
        ]
        return [
            Endpoint(
                method: .post, path: "/documents/{id}/edits", operationID: "edit",
                summary: "Apply a change; with base it is transformed through every change since", tag: "Editing",
                parameters: [Endpoint.header("Idempotency-Key", "Makes a resend safe")],
                requestBody: Endpoint.jsonBody(editBody),
                responses: [
                    Endpoint.json(200, "The change as applied", Schemas.ref("EditResult")),
                    Endpoint.error(400, "Malformed JSON or field"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(403, "Editing is disabled"),
                    Endpoint.error(404, "No such document"),
                    Endpoint.error(410, "The base revision is older than the kept history"),
                    Endpoint.error(413, "Too large"),
                    Endpoint.error(415, "Body is not JSON"),
                    Endpoint.error(422, "The operation does not fit the document"),
                    Endpoint.error(503, "The store cannot save"),
                ],
                handler: { [self] req, ctx, res in postEdit(req, ctx, res) }
            ),
            Endpoint(
                method: .get, path: "/documents/{id}/edits", operationID: "listEdits",
                summary: "The changes after revision since, in order; wait long-polls up to that many seconds", tag: "Editing",
                parameters: [
                    Endpoint.query("since", Schemas.nonNegative, "Revision already known (default 0)"),
                    Endpoint.query("wait", ["type": "number", "minimum": 0, "maximum": 30], "Seconds to wait when there is nothing new (at most 30)"),
                    Endpoint.query("maxBytes", ["type": "integer", "minimum": 1024],
                                   "Bytes of this page (default --edits-page-bytes, at most the largest body); a cut page has a Link: <…>; rel=\"next\" header"),
                ],
                responses: [
                    Endpoint.json(200, "Changes, oldest first: one page of about maxBytes (at least one change); a Link header with rel=\"next\" when more follow",
                                  Schemas.array(Schemas.ref("Change"))),
                    Endpoint.error(400, "Bad since, wait or maxBytes"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(404, "No such document"),
                    Endpoint.error(410, "since is older than the kept history: the log in memory and the archive in the store (--archive-bytes)"),
                    Endpoint.error(422, "since is after the current revision"),
                ],
                handler: { [self] req, ctx, res in listEdits(req, ctx, res) }
            ),
        ]
    }
}
