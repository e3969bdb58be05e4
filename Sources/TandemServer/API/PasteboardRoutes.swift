import TandemCore
import TandemStore
import TandemHTTP

extension ServerContext {
    var pasteboardEndpoints: [Endpoint] {
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
            Endpoint.error(401, "Bad token"),
            Endpoint.error(404, "No such pasteboard"),
            Endpoint.error(413, "Beyond a limit: representation size, items, representations per item, total size"),
            Endpoint.error(415, "No Content-Type and no ?type"),
            Endpoint.error(422, "An item without representations, or with a type twice"),
            Endpoint.error(503, "The store cannot save a persistent pasteboard"),
        ]
        return [
            Endpoint(
                method: .get, path: "/pasteboards", operationID: "listPasteboards",
                summary: "Every pasteboard, by name", tag: "Pasteboards",
                responses: [Endpoint.json(200, "Pasteboards", Schemas.array(Schemas.ref("PasteboardSummary"))),
                            Endpoint.error(401, "Bad token")],
                handler: { [self] req, res in
                    res.respond { () throws(APIError) in
                        _ = try session(of: req)
                        var w = JSONWriter(capacity: 256)
                        w.beginArray()
                        for p in pasteboards.list() { PasteboardJSON.summary(p, to: &w) }
                        w.endArray()
                        return .json(w.bytes)
                    }
                }
            ),
            Endpoint(
                method: .post, path: "/pasteboards", operationID: "createPasteboard",
                summary: "Create a named pasteboard owned by the session; without a name a unique one is made", tag: "Pasteboards",
                requestBody: Endpoint.jsonBody(Schemas.object([
                    ("name", ["type": "string", "pattern": "^[A-Za-z0-9._-]{1,128}$", "not": ["const": "events"]]),
                    ("persistent", Schemas.boolean),
                ], required: []), required: false),
                responses: [
                    Endpoint.json(201, "Created (persistent is false unless asked)", Schemas.ref("Pasteboard")),
                    Endpoint.error(400, "Malformed JSON, field or name"),
                    Endpoint.error(401, "A session is needed"),
                    Endpoint.error(409, "The name is taken, or the session owns too many pasteboards"),
                    Endpoint.error(415, "Body is not JSON"),
                    Endpoint.error(503, "The store cannot save"),
                ],
                handler: { [self] req, res in createPasteboard(req, res) }
            ),
            Endpoint(
                method: .get, path: "/pasteboards/events", operationID: "pasteboardEvents",
                summary: "Server-Sent Events: changed {kind,name,changeCount,typesAdded,typesRemoved}, removed {kind,name}", tag: "Pasteboards",
                responses: [
                    Endpoint.Response(status: 200, description: "An event stream of PasteboardEvent data, gzipped write by write when Accept-Encoding allows gzip", schema: Schemas.string, mediaType: "text/event-stream"),
                    Endpoint.error(401, "Bad token"),
                ],
                handler: { [self] req, res in pasteboardEvents(req, res) }
            ),
            Endpoint(
                method: .get, path: "/pasteboards/{name}", operationID: "getPasteboard",
                summary: "A pasteboard with its items", tag: "Pasteboards",
                responses: [Endpoint.json(200, "The pasteboard", Schemas.ref("Pasteboard")),
                            Endpoint.error(401, "Bad token"), Endpoint.error(404, "No such pasteboard")],
                handler: { [self] req, res in
                    res.respond { () throws(APIError) in
                        _ = try session(of: req)
                        return .json(PasteboardJSON.pasteboard(try pasteboards.pasteboard(req.parameters["name"] ?? "")))
                    }
                }
            ),
            Endpoint(
                method: .patch, path: "/pasteboards/{name}", operationID: "updatePasteboard",
                summary: "Make a pasteboard persistent or not (its owner only)", tag: "Pasteboards",
                requestBody: Endpoint.jsonBody(Schemas.object([("persistent", Schemas.boolean)], required: ["persistent"])),
                responses: [
                    Endpoint.json(200, "The pasteboard", Schemas.ref("PasteboardSummary")),
                    Endpoint.error(400, "Malformed JSON or field"),
                    Endpoint.error(401, "A session is needed"),
                    Endpoint.error(403, "Not the owner, or general"),
                    Endpoint.error(404, "No such pasteboard"),
                    Endpoint.error(415, "Body is not JSON"),
                    Endpoint.error(503, "The store cannot save"),
                ],
                handler: { [self] req, res in patchPasteboard(req, res) }
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
                handler: { [self] req, res in
                    let s: Session
                    do throws(APIError) { s = try requireSession(of: req, for: "removing a pasteboard") } catch {
                        return res.send(error.response)
                    }
                    pasteboards.remove(req.parameters["name"] ?? "", by: s.id, publish: service.publishPasteboard) { result in
                        res.send(result.map { HTTPResponse(status: .noContent) })
                    }
                }
            ),
            Endpoint(
                method: .put, path: "/pasteboards/{name}/items", operationID: "setPasteboardItems",
                summary: "setItems: replace every item (JSON items, or a raw body as one item of its Content-Type)", tag: "Pasteboards",
                parameters: [typeQuery], requestBody: itemsBody,
                responses: [Endpoint.json(200, "The pasteboard", Schemas.ref("PasteboardSummary"))] + writeErrors,
                handler: { [self] req, res in writeItems(req, res, replace: true) }
            ),
            Endpoint(
                method: .post, path: "/pasteboards/{name}/items", operationID: "addPasteboardItems",
                summary: "addItems: append items (JSON items, or a raw body as one item of its Content-Type)", tag: "Pasteboards",
                parameters: [typeQuery], requestBody: itemsBody,
                responses: [Endpoint.json(200, "The pasteboard", Schemas.ref("PasteboardSummary"))] + writeErrors,
                handler: { [self] req, res in writeItems(req, res, replace: false) }
            ),
            Endpoint(
                method: .get, path: "/pasteboards/{name}/items/{index}", operationID: "getPasteboardRepresentation",
                summary: "One representation as raw bytes with its MIME type (default: the item's first)", tag: "Pasteboards",
                parameters: [Endpoint.query("type", Schemas.string, "UTI or MIME type of the representation")],
                responses: [
                    Endpoint.Response(status: 200, description: "The bytes; X-Pasteboard-Type names the UTI", schema: ["type": "string", "format": "binary"], mediaType: "*/*"),
                    Endpoint.error(400, "Bad index or type"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(404, "No such pasteboard, item or type"),
                ],
                handler: { [self] req, res in res.respond { () throws(APIError) in try getRepresentation(req) } }
            ),
        ]
    }

    func createPasteboard(_ req: HTTPRequest, _ res: HTTPResponder) {
        let s: Session, name: String?, persistent: Bool
        do throws(APIError) {
            s = try requireSession(of: req, for: "creating a pasteboard")
            let body = try RequestBody.object(req)
            try body.allowOnly(["name", "persistent"])
            name = try body.string("name")
            if let name, !PasteboardRegistry.isValidName(name) {
                throw .invalidField("name", "must match [A-Za-z0-9._-]{1,128} and not be 'events'")
            }
            persistent = try body.bool("persistent") ?? false
        } catch {
            return res.send(error.response)
        }
        pasteboards.create(name: name, owner: s.id, persistent: persistent) { result in
            res.send(result.map { p in .json(PasteboardJSON.pasteboard(p), status: .created, headers: ["Location": "/pasteboards/\(p.name)"]) })
        }
    }

    func patchPasteboard(_ req: HTTPRequest, _ res: HTTPResponder) {
        let s: Session, persistent: Bool
        do throws(APIError) {
            s = try requireSession(of: req, for: "changing a pasteboard")
            let body = try RequestBody.object(req, allowEmpty: false)
            try body.allowOnly(["persistent"])
            guard let given = try body.bool("persistent") else { throw .invalidField("persistent", "is required") }
            persistent = given
        } catch {
            return res.send(error.response)
        }
        pasteboards.setPersistent(req.parameters["name"] ?? "", persistent, by: s.id) { result in
            res.send(result.map(Self.summaryResponse))
        }
    }

    func writeItems(_ req: HTTPRequest, _ res: HTTPResponder, replace: Bool) {
        let items: [PasteboardItem]
        do throws(APIError) {
            _ = try session(of: req)
            items = try decodeItems(req)
        } catch {
            return res.send(error.response)
        }
        pasteboards.write(req.parameters["name"] ?? "", publish: service.publishPasteboard, { p, limits throws(PasteboardError) in
            if replace { try p.setItems(items, limits: limits) } else { try p.addItems(items, limits: limits) }
        }, then: { result in
            res.send(result.map(Self.summaryResponse))
        })
    }

    /// A pasteboard's summary as the answer to a write.
    static func summaryResponse(_ p: Pasteboard) -> HTTPResponse {
        var w = JSONWriter(capacity: 128)
        PasteboardJSON.summary(p, to: &w)
        return .json(w.bytes)
    }

    /// JSON items for `application/json` (and curl's default form type); any other body is
    /// one item holding one representation of its Content-Type, or of `?type=`.
    func decodeItems(_ req: HTTPRequest) throws(APIError) -> [PasteboardItem] {
        var rawType = req.queryValue("type")
        if rawType == nil {
            guard let media = req.mediaType else {
                throw APIError(.unsupportedMediaType, "unsupported_media_type",
                               "send JSON items as application/json, or raw bytes with their Content-Type (or ?type=)")
            }
            if media == "application/json" || media == "application/x-www-form-urlencoded" {
                let json: JSONValue
                do { json = try JSONParser.parse(req.body) } catch { throw .invalidJSON("the body is not valid JSON: \(error.description)") }
                return try PasteboardJSON.items(json)
            }
            // A Content-Type is a MIME type: "public.png" there is a mistake, not a UTI.
            guard media.contains("/") else { throw .unsupportedMediaType("a MIME type a pasteboard can hold") }
            rawType = media
        }
        guard let given = rawType, let type = PasteboardType.identifier(for: given) else {
            if req.queryValue("type") != nil { throw .badRequest("type: '\(rawType ?? "")' is neither a UTI nor a MIME type", code: "invalid_type") }
            throw .unsupportedMediaType("a MIME type a pasteboard can hold")
        }
        return [PasteboardItem([PasteboardRepresentation(type: type, data: req.body)])]
    }

    func getRepresentation(_ req: HTTPRequest) throws(APIError) -> HTTPResponse {
        _ = try session(of: req)
        let p = try pasteboards.pasteboard(req.parameters["name"] ?? "")
        guard let index = Int(req.parameters["index"] ?? ""), index >= 0 else {
            throw .invalidField("index", "must be an item index (0 or more)")
        }
        guard index < p.items.count else { throw .notFound("item \(index) of pasteboard '\(p.name)'") }
        let item = p.items[index]
        let rep: PasteboardRepresentation
        if let given = req.queryValue("type") {
            guard let type = PasteboardType.identifier(for: given) else {
                throw .badRequest("type: '\(given)' is neither a UTI nor a MIME type", code: "invalid_type")
            }
            guard let r = item[type] else { throw .notFound("a representation of type \(type) in item \(index)") }
            rep = r
        } else {
            rep = item.representations[0]
        }
        return HTTPResponse(status: .ok, contentType: PasteboardType.servedMIMEType(for: rep.type, data: rep.data), body: rep.data, headers: [
            "X-Pasteboard-Type": rep.type,
            "X-Pasteboard-Change-Count": String(p.changeCount),
            "Cache-Control": "no-store",
        ])
    }

    func pasteboardEvents(_ req: HTTPRequest, _ res: HTTPResponder) {
        let session: Session?
        do throws(APIError) { session = try self.session(of: req) } catch {
            res.send(error.response)
            return
        }
        res.send(HTTPResponse(status: .ok, headers: ServerSentEvents.headers, body: .stream { [self] writer in
            // Subscribed before the preamble goes out: a client that has read it hears every later write.
            pasteboards.events.add(writer, session: session?.id)
            writer.write(ServerSentEvents.preamble)
        }))
    }

    /// To the pasteboards stream as `changed`/`removed`, and to every document stream as
    /// `pasteboard` for the subscribers it concerns (general, or their session's own).
    /// Start-up: restore the stored pasteboards (a session's end takes its own, see `storeSessionEnd`).
    func startPasteboards(_ stored: [StoredPasteboard]) {
        pasteboards.restore(stored, logger: logger)
    }
}
