import Foundation
import TandemCore
import Logging
import TandemHTTP
import TandemStore

/// Documents themselves: creating, listing, reading (JSON or text, with ETags), updating,
/// replacing the whole text and deleting.
final class DocumentController: RouteController {
    let service: DocumentService
    let store: any DocumentStore
    let logger: Logger
    let opened: OpenedDocuments
    /// Where this node holds only some documents (`--cluster leases`): every document's row.
    let directory: (@Sendable () throws(StoreError) -> [DirectoryEntry])?

    init(_ context: ServerContext) {
        service = context.service
        store = context.store
        logger = context.logger
        opened = context.opened
        directory = context.directory
    }

    static func isValidDocumentID(_ id: String) -> Bool {
        guard (1...128).contains(id.utf8.count) else { return false }
        return id.utf8.allSatisfy { b in
            (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 46 || b == 95 || b == 45
        }
    }

    func createDocument(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        let new: NewDocument
        do throws(APIError) { new = try decodeNewDocument(req, ctx) } catch { return res.send(error.response) }
        service.create(new, by: ctx.caller) { result in
            res.send(result) { created in
                .json(DocumentJSON.created(created), status: .created, headers: ["Location": "/documents/\(created.info.id)", "ETag": "\"0\""])
            }
        }
    }

    private func decodeNewDocument(_ req: HTTPRequest, _ ctx: RequestContext) throws(APIError) -> NewDocument {
        let body = try RequestBody.object(req)
        try body.allowOnly(["title", "text", "id", "access"])
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
            // Where documents have owners, an id this node is home for (about one in as many
            // tries as there are nodes): the balancer then sends the document's requests here.
            var candidate = Secrets.base64url(Secrets.randomBytes(9))
            for _ in 0..<32 where !service.replication.prefers(candidate) {
                candidate = Secrets.base64url(Secrets.randomBytes(9))
            }
            id = candidate
        }
        return NewDocument(id: id, title: title, text: text, access: try Self.accessMode(body), owner: ctx.session?.person)
    }

    /// Runs off the event loop (`storeReadOperations`): it reads the person's opened documents.
    func listDocuments(_ ctx: RequestContext) -> HTTPResponse {
        var opened: [String: RecentDocument] = [:]
        if let person = ctx.session?.person {
            do {
                for recent in try store.recentDocuments(person: person) { opened[recent.documentID] = recent }
            } catch {
                logger.error("could not read opened documents: \(error)")
                return APIError.storageFailing.response
            }
        }
        if let directory { return listAll(directory, for: ctx.caller, opened: opened) }
        let listed = service.documents(listedFor: ctx.caller, opened: opened)
        var w = JSONWriter(capacity: 96 * listed.count + 2)
        w.beginArray()
        for (h, role) in listed {
            let item = h.executor.sync { st in
                var one = JSONWriter(capacity: 128)
                DocumentJSON.summary(id: h.id, state: st, role: role, opened: opened[h.id]?.opened, to: &one)
                return one.bytes
            }
            w.raw(item)
        }
        w.endArray()
        return .json(w.bytes)
    }

    /// The list where this node holds only some documents: every stored document the caller
    /// may see, as held here when it is (exact), else as the store last recorded it (its
    /// revision and length after its last stored change).
    private func listAll(_ directory: () throws(StoreError) -> [DirectoryEntry], for caller: Caller,
                         opened: [String: RecentDocument]) -> HTTPResponse {
        let entries: [DirectoryEntry]
        do {
            entries = try directory()
        } catch {
            logger.error("could not read the documents: \(error)")
            return APIError.storageFailing.response
        }
        let time = service.now()
        var w = JSONWriter(capacity: 96 * entries.count + 2)
        w.beginArray()
        for entry in entries {
            let id = entry.document.id
            if let h = service.handles.find(id) {
                guard let listed = DocumentService.listing(id, rules: h.access.withLock { $0 }, for: caller, opened: opened[id], at: time)
                else { continue }
                w.raw(h.executor.sync { st in
                    var one = JSONWriter(capacity: 128)
                    DocumentJSON.summary(id: id, state: st, role: listed.role, opened: opened[id]?.opened, to: &one)
                    return one.bytes
                })
                continue
            }
            let rules = DocumentMetadata(decoding: entry.document.metadata).access
            guard let listed = DocumentService.listing(id, rules: rules, for: caller, opened: opened[id], at: time) else { continue }
            DocumentJSON.summary(id: id, title: entry.document.title, revision: entry.revision, length: entry.length ?? 0,
                                 modified: entry.document.modified, role: listed.role, opened: opened[id]?.opened, to: &w)
        }
        w.endArray()
        return .json(w.bytes)
    }

    func getDocument(_ req: HTTPRequest, _ ctx: RequestContext, asText: Bool) throws(APIError) -> HTTPResponse {
        let scope = ctx.session.map { UndoScope.session($0.id) } ?? .document
        let handle = try ctx.requestedDocument()
        let info = service.info(handle, scope: scope, caller: ctx.caller)
        opened.note(ctx.caller, opened: handle.id, at: service.now())
        let etag = "\"\(info.revision)\""
        if let inm = req.headers["If-None-Match"], EntityTag.matches(ifNoneMatch: inm, etag: etag) {
            return HTTPResponse(status: .notModified, headers: ["ETag": etag])
        }
        if asText {
            return HTTPResponse(status: .ok, contentType: "text/plain; charset=utf-8", body: Array(info.text.description.utf8), headers: ["ETag": etag])
        }
        return .json(DocumentJSON.document(info), headers: ["ETag": etag])
    }

    func deleteDocument(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        let handle: DocumentHandle
        do throws(APIError) {
            handle = try ctx.requestedDocument()
        } catch {
            return res.send(error.response)
        }
        service.delete(handle) { res.send($0) { HTTPResponse(status: .noContent) } }
    }

    func patchDocument(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        let handle: DocumentHandle, patch: DocumentPatch
        do throws(APIError) {
            handle = try ctx.requestedDocument()
            try RouteAccess.checkMetadataBody(req)
            let body = try RequestBody.object(req, allowEmpty: false)
            try body.allowOnly(["title", "editingDisabled", "secure", "levelsOfUndo", "access", "owner"])
            let title = try body.string("title")
            if let title, title.isEmpty || title.count > 500 { throw .invalidField("title", "must be 1 to 500 characters") }
            patch = DocumentPatch(title: title, editingDisabled: try body.bool("editingDisabled"),
                                  secure: try body.bool("secure"), levels: try body.int("levelsOfUndo"),
                                  access: try Self.accessMode(body), owner: try body.string("owner"))
            if let levels = patch.levels, levels < 0 { throw .invalidField("levelsOfUndo", "must be 0 (unlimited) or more") }
        } catch {
            return res.send(error.response)
        }
        service.update(handle, with: patch, by: ctx.caller) { res.send($0) { .json(DocumentJSON.document($0)) } }
    }

    func replaceText(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        let session: Session?, handle: DocumentHandle
        do throws(APIError) {
            session = ctx.session
            handle = try ctx.requestedDocument()
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
        var replacement = TextReplacement(text: text, actionName: "Replace", ifMatch: nil)
        if let im = req.headers["If-Match"] {
            replacement.ifMatch = { @Sendable etag in EntityTag.matches(ifMatch: im, etag: etag) }
            replacement.ifMatchText = im
        }
        service.replaceText(replacement, in: handle, by: session) { res.send($0) { .json(DocumentJSON.edit($0)) } }
    }

    static func accessMode(_ body: RequestBody) throws(APIError) -> AccessMode? {
        guard let raw = try body.string("access") else { return nil }
        guard let mode = AccessMode(rawValue: raw) else {
            throw .invalidField("access", "must be open, editable, locked or private")
        }
        return mode
    }
}
