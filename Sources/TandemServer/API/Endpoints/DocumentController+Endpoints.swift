import Foundation
import TandemCore
import TandemHTTP
import TandemStore

/// The endpoints of `DocumentController`: paths, OpenAPI descriptions and handlers.
extension DocumentController {
    var endpoints: [Endpoint] {
        [
            Endpoint(
                method: .post, path: "/documents", operationID: "createDocument",
                summary: "Create a document; its starting text is not an undoable change", tag: "Documents",
                requestBody: Endpoint.jsonBody(Schemas.object([
                    ("title", ["type": "string", "maxLength": 500]), ("text", Schemas.string),
                    ("id", ["type": "string", "pattern": "^[A-Za-z0-9._-]{1,128}$"]),
                    ("access", Schemas.ref("AccessMode")),
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
                handler: { [self] req, ctx, res in createDocument(req, ctx, res) }
            ),
            Endpoint(
                method: .get, path: "/documents", operationID: "listDocuments",
                summary: "All documents", tag: "Documents",
                responses: [Endpoint.json(200, "Documents by id", Schemas.array(Schemas.ref("DocumentSummary")))],
                handler: { [self] _, ctx, res in res.send(listDocuments(ctx)) }
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
                handler: { [self] req, ctx, res in res.respond { () throws(APIError) in try getDocument(req, ctx, asText: false) } }
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
                handler: { [self] req, ctx, res in deleteDocument(req, ctx, res) }
            ),
            Endpoint(
                method: .patch, path: "/documents/{id}", operationID: "updateDocument",
                summary: "Title (editors); editingDisabled, secure, levelsOfUndo, access, owner (the owner)", tag: "Documents",
                requestBody: Endpoint.jsonBody(Schemas.object([
                    ("title", ["type": "string", "maxLength": 500]), ("editingDisabled", Schemas.boolean),
                    ("secure", Schemas.boolean), ("levelsOfUndo", Schemas.nonNegative),
                    ("access", Schemas.ref("AccessMode")), ("owner", Schemas.string),
                ], required: [])),
                responses: [
                    Endpoint.json(200, "The document", Schemas.ref("Document")),
                    Endpoint.error(400, "Malformed JSON or field"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(404, "No such document"),
                    Endpoint.error(409, "access open or editable while viewer links work (viewer_links_work)"),
                    Endpoint.error(413, "A body of more than 64 KiB"),
                    Endpoint.error(415, "Body is not JSON"),
                    Endpoint.error(503, "The store cannot save"),
                ],
                handler: { [self] req, ctx, res in patchDocument(req, ctx, res) }
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
                handler: { [self] req, ctx, res in res.respond { () throws(APIError) in try getDocument(req, ctx, asText: true) } }
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
                handler: { [self] req, ctx, res in replaceText(req, ctx, res) }
            ),
        ]
    }
}
