import Foundation
import TandemCore
import TandemHTTP
import TandemStore

extension ServerContext {
    var documentEndpoints: [Endpoint] {
        [
            Endpoint(
                method: .post, path: "/documents", operationID: "createDocument",
                summary: "Create a document; its starting text is not an undoable change", tag: "Documents",
                requestBody: Endpoint.jsonBody(Schemas.object([
                    ("title", ["type": "string", "maxLength": 500]), ("text", Schemas.string),
                    ("id", ["type": "string", "pattern": "^[A-Za-z0-9._-]{1,128}$"]),
                ], required: []), required: false),
                responses: [
                    Endpoint.json(201, "Created", Schemas.ref("Document")),
                    Endpoint.error(400, "Malformed JSON, field or id"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(409, "The id is taken"),
                    Endpoint.error(413, "Too large"),
                    Endpoint.error(415, "Body is not JSON"),
                    Endpoint.error(503, "The store cannot save"),
                ],
                handler: { [self] req, res in createDocument(req, res) }
            ),
            Endpoint(
                method: .get, path: "/documents", operationID: "listDocuments",
                summary: "All documents", tag: "Documents",
                responses: [Endpoint.json(200, "Documents by id", Schemas.array(Schemas.ref("DocumentSummary")))],
                handler: { [self] _, res in res.send(.json(listDocuments())) }
            ),
            Endpoint(
                method: .get, path: "/documents/{id}", operationID: "getDocument",
                summary: "A document with its text; ETag is the revision", tag: "Documents",
                parameters: [Endpoint.header("If-None-Match", "An ETag from before: 304 when unchanged")],
                responses: [
                    Endpoint.json(200, "The document", Schemas.ref("Document")),
                    Endpoint.Response(status: 304, description: "Not modified since the ETag"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(404, "No such document"),
                ],
                handler: { [self] req, res in res.respond { () throws(APIError) in try getDocument(req, asText: false) } }
            ),
            Endpoint(
                method: .delete, path: "/documents/{id}", operationID: "deleteDocument",
                summary: "Delete a document", tag: "Documents",
                responses: [
                    Endpoint.Response(status: 204, description: "Deleted"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(404, "No such document"),
                    Endpoint.error(503, "The store cannot delete"),
                ],
                handler: { [self] req, res in deleteDocument(req, res) }
            ),
            Endpoint(
                method: .patch, path: "/documents/{id}", operationID: "updateDocument",
                summary: "Title, editingDisabled, secure, levelsOfUndo", tag: "Documents",
                requestBody: Endpoint.jsonBody(Schemas.object([
                    ("title", ["type": "string", "maxLength": 500]), ("editingDisabled", Schemas.boolean),
                    ("secure", Schemas.boolean), ("levelsOfUndo", Schemas.nonNegative),
                ], required: [])),
                responses: [
                    Endpoint.json(200, "The document", Schemas.ref("Document")),
                    Endpoint.error(400, "Malformed JSON or field"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(404, "No such document"),
                    Endpoint.error(415, "Body is not JSON"),
                    Endpoint.error(503, "The store cannot save"),
                ],
                handler: { [self] req, res in patchDocument(req, res) }
            ),
            Endpoint(
                method: .get, path: "/documents/{id}/text", operationID: "getDocumentText",
                summary: "The text as text/plain; ETag is the revision", tag: "Documents",
                parameters: [Endpoint.header("If-None-Match", "An ETag from before: 304 when unchanged")],
                responses: [
                    Endpoint.Response(status: 200, description: "The text", schema: Schemas.string, mediaType: "text/plain"),
                    Endpoint.Response(status: 304, description: "Not modified since the ETag"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(404, "No such document"),
                ],
                handler: { [self] req, res in res.respond { () throws(APIError) in try getDocument(req, asText: true) } }
            ),
            Endpoint(
                method: .put, path: "/documents/{id}/text", operationID: "replaceDocumentText",
                summary: "Replace the whole text as one undoable change named Replace", tag: "Documents",
                parameters: [Endpoint.header("If-Match", "Only if the document is still at this ETag (else 412)"),
                             Endpoint.header("Idempotency-Key", "Makes a resend safe")],
                requestBody: ["required": true, "content": ["text/plain": ["schema": Schemas.string]]],
                responses: [
                    Endpoint.json(200, "The change as applied", Schemas.ref("EditResult")),
                    Endpoint.error(400, "Body is not UTF-8"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(403, "Editing is disabled"),
                    Endpoint.error(404, "No such document"),
                    Endpoint.error(412, "If-Match does not match"),
                    Endpoint.error(413, "Too large"),
                    Endpoint.error(415, "Body is not text/plain"),
                    Endpoint.error(503, "The store cannot save"),
                ],
                handler: { [self] req, res in replaceText(req, res) }
            ),
        ]
    }

    static func isValidDocumentID(_ id: String) -> Bool {
        guard (1...128).contains(id.utf8.count) else { return false }
        return id.utf8.allSatisfy { b in
            (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 46 || b == 95 || b == 45
        }
    }

    func createDocument(_ req: HTTPRequest, _ res: HTTPResponder) {
        let new: NewDocument
        do throws(APIError) { new = try decodeNewDocument(req) } catch { return res.send(error.response) }
        service.create(new) { result in
            res.send(result) { info in
                .json(DocumentJSON.document(info), status: .created, headers: ["Location": "/documents/\(info.id)", "ETag": "\"0\""])
            }
        }
    }

    private func decodeNewDocument(_ req: HTTPRequest) throws(APIError) -> NewDocument {
        _ = try session(of: req)
        let body = try RequestBody.object(req)
        try body.allowOnly(["title", "text", "id"])
        let text = try body.string("text") ?? ""
        var title = try body.string("title") ?? "Untitled"
        if title.count > 500 { throw .invalidField("title", "must be at most 500 characters") }
        if title.isEmpty { title = "Untitled" }
        let id: String
        if let given = try body.string("id") {
            guard Self.isValidDocumentID(given) else {
                throw .invalidField("id", "must match [A-Za-z0-9._-]{1,128}")
            }
            id = given
        } else {
            id = Secrets.base64url(Secrets.randomBytes(9))
        }
        return NewDocument(id: id, title: title, text: text)
    }

    func listDocuments() -> [UInt8] {
        let handles = service.allDocuments()
        var w = JSONWriter(capacity: 64 * handles.count + 2)
        w.beginArray()
        for h in handles {
            let item = h.state.withLock { st in
                var one = JSONWriter(capacity: 96)
                DocumentJSON.summary(id: h.id, state: st, to: &one)
                return one.bytes
            }
            w.raw(item)
        }
        w.endArray()
        return w.bytes
    }

    func getDocument(_ req: HTTPRequest, asText: Bool) throws(APIError) -> HTTPResponse {
        let scope = try session(of: req).map { UndoScope.session($0.id) } ?? .document
        let handle = try document(req.parameters["id"] ?? "")
        let info = service.info(handle, scope: scope)
        let etag = "\"\(info.revision)\""
        if let inm = req.headers["If-None-Match"], EntityTag.matches(ifNoneMatch: inm, etag: etag) {
            return HTTPResponse(status: .notModified, headers: ["ETag": etag])
        }
        if asText {
            return HTTPResponse(status: .ok, contentType: "text/plain; charset=utf-8", body: Array(info.text.description.utf8), headers: ["ETag": etag])
        }
        return .json(DocumentJSON.document(info), headers: ["ETag": etag])
    }

    func deleteDocument(_ req: HTTPRequest, _ res: HTTPResponder) {
        let handle: DocumentHandle
        do throws(APIError) {
            _ = try session(of: req)
            handle = try document(req.parameters["id"] ?? "")
        } catch {
            return res.send(error.response)
        }
        service.delete(handle) { res.send($0) { HTTPResponse(status: .noContent) } }
    }

    func patchDocument(_ req: HTTPRequest, _ res: HTTPResponder) {
        let handle: DocumentHandle, patch: DocumentPatch
        do throws(APIError) {
            _ = try session(of: req)
            handle = try document(req.parameters["id"] ?? "")
            let body = try RequestBody.object(req, allowEmpty: false)
            try body.allowOnly(["title", "editingDisabled", "secure", "levelsOfUndo"])
            let title = try body.string("title")
            if let title, title.isEmpty || title.count > 500 { throw .invalidField("title", "must be 1 to 500 characters") }
            patch = DocumentPatch(title: title, editingDisabled: try body.bool("editingDisabled"),
                                  secure: try body.bool("secure"), levels: try body.int("levelsOfUndo"))
            if let levels = patch.levels, levels < 0 { throw .invalidField("levelsOfUndo", "must be 0 (unlimited) or more") }
        } catch {
            return res.send(error.response)
        }
        service.update(handle, with: patch) { res.send($0) { .json(DocumentJSON.document($0)) } }
    }

    func replaceText(_ req: HTTPRequest, _ res: HTTPResponder) {
        let session: Session?, handle: DocumentHandle
        do throws(APIError) {
            session = try self.session(of: req)
            handle = try document(req.parameters["id"] ?? "")
            // curl --data-binary labels the bytes x-www-form-urlencoded unless told otherwise.
            if let type = req.mediaType,
               !(type.hasPrefix("text/") || type == "application/octet-stream" || type == "application/x-www-form-urlencoded") {
                throw APIError.unsupportedMediaType("text/plain")
            }
        } catch {
            return res.send(error.response)
        }
        guard let text = req.bodyText else {
            return res.send(APIError.badRequest("the body is not valid UTF-8", code: "invalid_text").response)
        }
        let replacement = TextReplacement(text: text, actionName: "Replace", ifMatch: req.headers["If-Match"])
        service.replaceText(replacement, in: handle, by: session) { res.send($0) { .json(DocumentJSON.edit($0)) } }
    }
}
