import TandemCore
import TandemHTTP

/// The endpoints of `EventController`: paths, OpenAPI descriptions and handlers.
extension EventController {
    var endpoints: [Endpoint] {
        [
            Endpoint(
                method: .get, path: "/documents/{id}/events", operationID: "documentEvents",
                summary: "Server-Sent Events: change, presence, history, saved, state, title, pasteboard; id is the revision", tag: "Editing",
                parameters: [Endpoint.header("Last-Event-ID", "Resume: the changes after this revision are replayed first"),
                             Endpoint.query("lastEventId", Schemas.nonNegative, "Same as Last-Event-ID, for clients that cannot set headers")],
                responses: [
                    Endpoint.Response(status: 200, description: "An event stream, gzipped write by write when Accept-Encoding allows gzip", schema: Schemas.serverSentEvent(
                        ["change", "presence", "history", "saved", "version", "versionRemoved", "state", "title", "access", "pasteboard", "reset"]), mediaType: "text/event-stream"),
                    Endpoint.error(400, "Bad Last-Event-ID"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(404, "No such document"),
                ],
                handler: { [self] req, ctx, res in documentEvents(req, ctx, res) }
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
                handler: { [self] req, ctx, res in putSelection(req, ctx, res) }
            ),
            Endpoint(
                method: .get, path: "/documents/{id}/presence", operationID: "presence",
                summary: "Sessions in the document (an open event stream, or a selection and no stream closed since) with name, color, user (one person's tabs share it; null for a guest) and selection", tag: "Editing",
                responses: [
                    Endpoint.json(200, "Sessions", Schemas.array(Schemas.object([
                        ("id", Schemas.string), ("name", Schemas.string), ("color", Schemas.string), ("user", Schemas.nullableString),
                        ("selection", ["oneOf": [Schemas.ref("Selection"), ["type": "null"]]]),
                    ], required: ["id", "name", "color", "user", "selection"]))),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(404, "No such document"),
                ],
                handler: { [self] req, ctx, res in
                    res.respond { () throws(APIError) in
                        let handle = try ctx.requestedDocument()
                        return .json(service.events.presenceJSON(handle))
                    }
                }
            ),
        ]
    }
}
