import TandemCore
import TandemHTTP
import TandemStore

/// Undo and redo over HTTP: undo (selective and nested), redo, the history of a scope (the
/// session's own or the document's), naming and capping it, undo grouping and registration.
final class HistoryController: RouteController {
    let service: DocumentService

    init(_ context: ServerContext) {
        service = context.service
    }

    /// The document, the scope the request means, and its session.
    func historyTarget(_ req: HTTPRequest, _ ctx: RequestContext) throws(APIError) -> (DocumentHandle, UndoScope, Session?) {
        let session = ctx.session
        let handle = try ctx.requestedDocument()
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
    func undoRequest(_ req: HTTPRequest, _ ctx: RequestContext, redo: Bool) throws(APIError) -> (DocumentHandle, Session?, UndoRequest) {
        let (handle, scope, session) = try historyTarget(req, ctx)
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

    func undoOrRedo(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder, redo: Bool) {
        let handle: DocumentHandle, session: Session?, request: UndoRequest
        do throws(APIError) {
            (handle, session, request) = try undoRequest(req, ctx, redo: redo)
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

    func patchHistory(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        let handle: DocumentHandle, scope: UndoScope, patch: HistoryPatch
        do throws(APIError) {
            (handle, scope, _) = try historyTarget(req, ctx)
            try RouteAccess.checkMetadataBody(req)
            let body = try RequestBody.object(req, allowEmpty: false)
            try body.allowOnly(["actionName", "levelsOfUndo", "actionIsDiscardable"])
            let name = try body.string("actionName")
            if let name, name.count > 200 { throw .invalidField("actionName", "must be at most 200 characters") }
            patch = HistoryPatch(actionName: name, levelsOfUndo: try body.int("levelsOfUndo"),
                                 actionIsDiscardable: try body.bool("actionIsDiscardable"))
            if let levels = patch.levelsOfUndo, levels < 0 { throw .invalidField("levelsOfUndo", "must be 0 (unlimited) or more") }
        } catch {
            return res.send(error.response)
        }
        service.updateHistory(patch, scope: scope, in: handle) { res.send($0) { .json(Self.historyJSON($0)) } }
    }

    /// `POST …/history/registration/disable` (`enable`): the session's own
    /// disableUndoRegistration (enableUndoRegistration).
    func registration(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder, enable: Bool) {
        let session: Session, handle: DocumentHandle
        do throws(APIError) {
            session = try ctx.requireSession(for: "undo registration")
            handle = try ctx.requestedDocument()
            // The body, if any, is an empty object: a field it does not know is a typo, not a wish.
            try RequestBody.object(req).allowOnly([])
        } catch {
            return res.send(error.response)
        }
        service.registration(enable: enable, in: handle, by: session) { result in
            res.send(result) { state in
                var w = JSONWriter(capacity: 64)
                w.beginObject()
                w.key("undoRegistrationEnabled"); w.bool(state.enabled)
                w.key("disabledLevel"); w.int(state.disabledLevel)
                w.endObject()
                return .json(w.bytes)
            }
        }
    }

    func grouping(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder, begin: Bool) {
        let session: Session, handle: DocumentHandle
        do throws(APIError) {
            session = try ctx.requireSession(for: "undo grouping")
            handle = try ctx.requestedDocument()
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
