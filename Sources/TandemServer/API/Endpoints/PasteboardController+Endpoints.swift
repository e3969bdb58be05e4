import TandemCore
import TandemStore
import TandemHTTP

/// The endpoints of `PasteboardController`: paths, OpenAPI descriptions and handlers.
extension PasteboardController {
    var endpoints: [Endpoint] {
        let itemsBody: JSONValue = [
            "required": true,
            "content": [
                "application/json": ["schema": Schemas.ref("PasteboardItems")],
                "*/*": ["schema": ["type": "string", "format": "binary",
                                   "description": "Any other Content-Type (or ?type=): the body becomes one item with one representation of that type"]],
            ],
        ]
        let typeQuery = Endpoint.query("type", Schemas.string, "UTI or MIME type of a raw body; overrides Content-Type, so JSON can be put as data")
        let writeErrors: [Endpoint.Response] = [
            Endpoint.error(400, "Malformed JSON, field, base64 or type"),
            Endpoint.error(401, "Bad token, or general without a session"),
            Endpoint.error(404, "No such pasteboard that the caller may read"),
            Endpoint.error(413, "Beyond a limit: representation size, items, representations per item, total size, or the session's pasteboard budget"),
            Endpoint.error(507, "All pasteboards together would pass their budget"),
            Endpoint.error(415, "No Content-Type and no ?type"),
            Endpoint.error(422, "An item without representations, or with a type twice"),
            Endpoint.error(503, "The store cannot save a persistent pasteboard"),
        ]
        return [
            Endpoint(
                method: .get, path: "/pasteboards", operationID: "listPasteboards",
                summary: "The pasteboards the caller may read: their own general first, then their own and those shared with everyone or with them, by name (the operator: every named one)", tag: "Pasteboards",
                responses: [Endpoint.json(200, "Pasteboards", Schemas.array(Schemas.ref("PasteboardSummary"))),
                            Endpoint.error(401, "Bad token")],
                handler: { [self] req, ctx, res in
                    res.respond { () throws(APIError) in
                        var w = JSONWriter(capacity: 256)
                        w.beginArray()
                        for p in pasteboards.list(for: ctx.caller.pasteboardReader) { PasteboardJSON.summary(p, names: sessions.name(ofPerson:), to: &w) }
                        w.endArray()
                        return .json(w.bytes)
                    }
                }
            ),
            Endpoint(
                method: .post, path: "/pasteboards", operationID: "createPasteboard",
                summary: "Create a named pasteboard owned by the session's person (its user, or the guest session), private unless shared with everyone or with users by sign-in name; without a name a unique one is made", tag: "Pasteboards",
                requestBody: Endpoint.jsonBody(Schemas.object([
                    ("name", ["type": "string", "pattern": "^[A-Za-z0-9._-]{1,128}$", "not": ["enum": ["events", "general"]]]),
                    ("persistent", Schemas.boolean),
                    ("shared", Schemas.sharing),
                ], required: []), required: false),
                responses: [
                    Endpoint.json(201, "Created (persistent is false unless asked)", Schemas.ref("Pasteboard")),
                    Endpoint.error(400, "Malformed JSON, field or name"),
                    Endpoint.error(401, "A session is needed"),
                    Endpoint.error(409, "The name is taken, or the person owns too many pasteboards"),
                    Endpoint.error(415, "Body is not JSON"),
                    Endpoint.error(422, "A name in shared is no user's"),
                    Endpoint.error(503, "The store cannot save"),
                ],
                handler: { [self] req, ctx, res in createPasteboard(req, ctx, res) }
            ),
            Endpoint(
                method: .get, path: "/pasteboards/events", operationID: "pasteboardEvents",
                summary: "Server-Sent Events of the pasteboards the caller may read: changed {kind,name,changeCount,typesAdded,typesRemoved}, removed {kind,name}", tag: "Pasteboards",
                responses: [
                    Endpoint.Response(status: 200, description: "An event stream of PasteboardEvent data, gzipped write by write when Accept-Encoding allows gzip", schema: Schemas.string, mediaType: "text/event-stream"),
                    Endpoint.error(401, "Bad token"),
                ],
                handler: { [self] req, ctx, res in pasteboardEvents(req, ctx, res) }
            ),
            Endpoint(
                method: .get, path: "/pasteboards/{name}", operationID: "getPasteboard",
                summary: "A pasteboard with its items; general is the caller's own", tag: "Pasteboards",
                responses: [Endpoint.json(200, "The pasteboard", Schemas.ref("Pasteboard")),
                            Endpoint.error(401, "Bad token, or general without a session"),
                            Endpoint.error(404, "No such pasteboard that the caller may read")],
                handler: { [self] req, ctx, res in
                    res.respond { () throws(APIError) in
                        return .json(PasteboardJSON.pasteboard(try pasteboards.pasteboard(req.parameters["name"] ?? "", for: ctx.caller.pasteboardReader),
                                                             names: sessions.name(ofPerson:)))
                    }
                }
            ),
            Endpoint(
                method: .patch, path: "/pasteboards/{name}", operationID: "updatePasteboard",
                summary: "Make a pasteboard persistent or not; share it with everyone, with users by sign-in name, or nobody (its owner only)", tag: "Pasteboards",
                requestBody: Endpoint.jsonBody(Schemas.object([("persistent", Schemas.boolean), ("shared", Schemas.sharing)], required: [])),
                responses: [
                    Endpoint.json(200, "The pasteboard", Schemas.ref("PasteboardSummary")),
                    Endpoint.error(400, "Malformed JSON or field, or neither persistent nor shared"),
                    Endpoint.error(401, "A session is needed"),
                    Endpoint.error(403, "Not the owner, or general"),
                    Endpoint.error(404, "No such pasteboard that the caller may read"),
                    Endpoint.error(415, "Body is not JSON"),
                    Endpoint.error(422, "A name in shared is no user's"),
                    Endpoint.error(503, "The store cannot save"),
                ],
                handler: { [self] req, ctx, res in patchPasteboard(req, ctx, res) }
            ),
            Endpoint(
                method: .delete, path: "/pasteboards/{name}", operationID: "deletePasteboard",
                summary: "Remove a pasteboard (its owner only; general cannot be removed)", tag: "Pasteboards",
                responses: [
                    Endpoint.Response(status: 204, description: "Removed"),
                    Endpoint.error(401, "A session is needed"),
                    Endpoint.error(403, "Not the owner, or general"),
                    Endpoint.error(404, "No such pasteboard"),
                    Endpoint.error(503, "The store cannot delete"),
                ],
                handler: { [self] req, ctx, res in
                    let s: Session
                    do throws(APIError) { s = try ctx.requireSession(for: "removing a pasteboard") } catch {
                        return res.send(error.response)
                    }
                    pasteboards.remove(req.parameters["name"] ?? "", by: s.pasteboardReader, publish: service.events.publishPasteboard) { result in
                        res.send(result.map { HTTPResponse(status: .noContent) })
                    }
                }
            ),
            Endpoint(
                method: .put, path: "/pasteboards/{name}/items", operationID: "setPasteboardItems",
                summary: "setItems: replace every item (JSON items, or a raw body as one item of its Content-Type)", tag: "Pasteboards",
                parameters: [typeQuery], requestBody: itemsBody,
                responses: [Endpoint.json(200, "The pasteboard", Schemas.ref("PasteboardSummary"))] + writeErrors,
                handler: { [self] req, ctx, res in writeItems(req, ctx, res, replace: true) }
            ),
            Endpoint(
                method: .post, path: "/pasteboards/{name}/items", operationID: "addPasteboardItems",
                summary: "addItems: append items (JSON items, or a raw body as one item of its Content-Type)", tag: "Pasteboards",
                parameters: [typeQuery], requestBody: itemsBody,
                responses: [Endpoint.json(200, "The pasteboard", Schemas.ref("PasteboardSummary"))] + writeErrors,
                handler: { [self] req, ctx, res in writeItems(req, ctx, res, replace: false) }
            ),
            Endpoint(
                method: .get, path: "/pasteboards/{name}/items/{index}", operationID: "getPasteboardRepresentation",
                summary: "One representation as raw bytes with its MIME type (default: the item's first)", tag: "Pasteboards",
                parameters: [Endpoint.query("type", Schemas.string, "UTI or MIME type of the representation")],
                responses: [
                    // Any bytes under their own type: JSON ones too, so no JSON type is claimed.
                    Endpoint.Response(status: 200, description: "The bytes; X-Pasteboard-Type names the UTI", schema: ["format": "binary"], mediaType: "*/*"),
                    Endpoint.error(400, "Bad index or type"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(404, "No such pasteboard, item or type"),
                ],
                handler: { [self] req, ctx, res in res.respond { () throws(APIError) in try getRepresentation(req, ctx) } }
            ),
        ]
    }
}
