import TandemCore
import TandemHTTP
import TandemStore

/// The endpoints of `VersionController`: paths, OpenAPI descriptions and handlers.
extension VersionController {
    var endpoints: [Endpoint] {
        let version: JSONValue = Schemas.object([
            ("number", Schemas.nonNegative), ("revision", Schemas.nonNegative), ("time", Schemas.number),
            ("length", Schemas.nonNegative), ("name", Schemas.nullableString), ("automatic", Schemas.boolean),
            ("since", Schemas.nullableNumber),
        ], required: ["number", "revision", "time", "length", "name", "automatic", "since"])
        let name: JSONValue = ["type": ["string", "null"], "minLength": 1, "maxLength": .integer(SaveRequest.maxNameLength), "pattern": "\\S"]
        return [
            Endpoint(
                method: .post, path: "/documents/{id}/save", operationID: "save",
                summary: "Save a version now, named if a name is given; resets changeCount", tag: "Documents",
                requestBody: Endpoint.jsonBody(Schemas.object([
                    ("name", name),
                ], required: []), required: false),
                responses: [
                    Endpoint.json(201, "The saved version", version),
                    Endpoint.error(400, "A name that is not a string of 1 to 200 characters, or another field"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(415, "Body is not JSON"),
                    Endpoint.error(507, "The document's versions are full (versions_full): its owner may delete some"),
                    Endpoint.error(404, "No such document"),
                    Endpoint.error(503, "The store cannot save"),
                ],
                handler: { [self] req, ctx, res in
                    let handle: DocumentHandle, request: SaveRequest
                    do throws(APIError) {
                        handle = try ctx.requestedDocument()
                        request = try saveRequest(req)
                    } catch {
                        return res.send(error.response)
                    }
                    service.save(handle, request) { res.send($0) { .json(DocumentJSON.version($0), status: .created) } }
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
                handler: { [self] req, ctx, res in
                    res.respond { () throws(APIError) in
                        let handle = try ctx.requestedDocument()
                        let list = try service.versions(of: handle)
                        var w = JSONWriter(capacity: 64 * list.count + 2)
                        w.beginArray()
                        for v in list { w.raw(DocumentJSON.version(v)) }
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
                handler: { [self] req, ctx, res in
                    res.respond { () throws(APIError) in
                        let handle = try ctx.requestedDocument()
                        let v = try storedVersion(handle, req.parameters["n"])
                        return HTTPResponse(status: .ok, contentType: "text/plain; charset=utf-8", body: Array(v.text.utf8))
                    }
                }
            ),
            Endpoint(
                method: .patch, path: "/documents/{id}/versions/{n}", operationID: "nameVersion",
                summary: "Name a version (null takes the name away); a named autosave checkpoint is kept, never replaced", tag: "Documents",
                requestBody: Endpoint.jsonBody(Schemas.object([
                    ("name", name),
                ], required: ["name"])),
                responses: [
                    Endpoint.json(200, "The version as named", version),
                    Endpoint.error(400, "n is not a number, or the body is not {name}"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(404, "No such document or version"),
                    Endpoint.error(413, "A body of more than 64 KiB"),
                    Endpoint.error(415, "Body is not JSON"),
                    Endpoint.error(503, "The store cannot save"),
                ],
                handler: { [self] req, ctx, res in
                    let handle: DocumentHandle, number: Int, name: String?
                    do throws(APIError) {
                        handle = try ctx.requestedDocument()
                        number = try versionNumber(req.parameters["n"])
                        name = try versionName(req)
                    } catch {
                        return res.send(error.response)
                    }
                    service.editVersion(number, .name(name), of: handle) { res.send($0) { .json(DocumentJSON.version($0)) } }
                }
            ),
            Endpoint(
                method: .delete, path: "/documents/{id}/versions/{n}", operationID: "deleteVersion",
                summary: "Delete a saved version (the owner's): what makes room when the document's versions are full", tag: "Documents",
                responses: [
                    Endpoint.Response(status: 204, description: "Deleted"),
                    Endpoint.error(400, "n is not a number"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(403, "Only the owner deletes versions"),
                    Endpoint.error(404, "No such document or version"),
                    Endpoint.error(503, "The store cannot save"),
                ],
                handler: { [self] req, ctx, res in
                    let handle: DocumentHandle, number: Int
                    do throws(APIError) {
                        handle = try ctx.requestedDocument()
                        number = try versionNumber(req.parameters["n"])
                    } catch {
                        return res.send(error.response)
                    }
                    service.editVersion(number, .remove, of: handle) { res.send($0) { _ in HTTPResponse(status: .noContent) } }
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
                handler: { [self] req, ctx, res in revert(req, ctx, res) }
            ),
        ]
    }
}
