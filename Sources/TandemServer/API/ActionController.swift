import Dispatch
import TandemCore
import TandemHTTP

/// The editing actions of a document's menu.
///
/// UIResponderStandardEditActions on a document: cut, copy, paste, delete, select,
/// selectAll, and canPerformAction as `GET …/actions`.
///
/// The target is `{"from","to"}` when given, else the session's selection (401 without a
/// session). Where text is needed (cut, copy, delete) an empty target is refused: an empty
/// selection is a state conflict (409 `empty_selection`), an empty explicit range invalid
/// input (422 `empty_range`); no selection at all is 409 `no_selection`. The rules are
/// TandemCore's (`EditingTarget`, `EditActionAvailability`); here they meet HTTP.
final class ActionController: RouteController {
    let service: DocumentService
    let pasteboards: PasteboardRegistry

    init(_ context: ServerContext) {
        service = context.service
        pasteboards = context.pasteboards
    }

    enum EditAction: String, CaseIterable {
        case cut, copy, paste, delete, select, selectAll

        var actionName: String {
            switch self {
            case .cut: "Cut"
            case .paste: "Paste"
            case .delete: "Delete"
            default: ""
            }
        }

        var fields: [String] {
            switch self {
            case .cut, .copy: ["from", "to", "pasteboard"]
            case .paste: ["from", "to", "pasteboard", "type"]
            case .delete, .select: ["from", "to"]
            case .selectAll: []
            }
        }

        var summary: String {
            switch self {
            case .cut: "Cut: the target's text onto the pasteboard as plain text, then deleted (undoable \"Cut\"); caret at its start"
            case .copy: "Copy: the target's text onto the pasteboard as plain text; answers the pasteboard's changeCount"
            case .paste: "Paste: the first item's plain text (or ?type) replaces the target (undoable \"Paste\"); caret after it"
            case .delete: "Delete the target's text (undoable \"Delete\"); caret at its start"
            case .select: "Select the range, or with no range the word around the caret"
            case .selectAll: "Select the whole text"
            }
        }
    }


    func decodeAction(_ action: EditAction, _ req: HTTPRequest) throws(APIError) -> ActionRequest {
        // Paste takes its type in the query too, as a raw pasteboard write does (`?type=`).
        try QueryParameters.allowOnly(req, action == .paste ? ["type"] : [])
        let body = try RequestBody.object(req)
        try body.allowOnly(action.fields)
        let range = try Self.actionRange(from: try body.int("from"), to: try body.int("to"))
        var type = try Self.pasteType(try body.string("type"))
        if let fromQuery = try Self.pasteType(req.queryValue("type")) {
            if let type, type != fromQuery {
                throw .invalidField("type", "the body says \(type) and the query \(fromQuery): give one")
            }
            type = fromQuery
        }
        return ActionRequest(range: range, pasteboard: try body.string("pasteboard") ?? Pasteboard.generalName, type: type)
    }

    /// `{"from","to"}` (a body's or a query's) checked as 0 <= from <= to; nil when neither is given.
    static func actionRange(from: Int?, to: Int?) throws(APIError) -> Range<Int>? {
        switch (from, to) {
        case (nil, nil): return nil
        case let (f?, t?):
            guard f >= 0, t >= f else { throw .unprocessable("need 0 <= from <= to, got \(f)...\(t)", code: "position_out_of_range") }
            return f..<t
        default: throw .invalidField(from == nil ? "from" : "to", "from and to go together")
        }
    }

    /// The UTI a paste's `type` (a UTI or a MIME type) names; nil when none was given.
    static func pasteType(_ given: String?) throws(APIError) -> String? {
        guard let given else { return nil }
        guard let t = PasteboardType.identifier(for: given) else {
            throw .badRequest("type: '\(given)' is neither a UTI nor a MIME type", code: "invalid_type")
        }
        return t
    }

    func perform(_ action: EditAction, _ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        let session: Session?
        let handle: DocumentHandle
        let body: ActionRequest
        do throws(APIError) {
            session = ctx.session
            handle = try ctx.requestedDocument()
            body = try decodeAction(action, req)
            if action == .select || action == .selectAll, session == nil { throw .sessionRequired(action.rawValue) }
            // The pasteboard must exist before anything is done.
            if action == .cut || action == .copy || action == .paste { _ = try pasteboards.pasteboard(body.pasteboard, for: ctx.caller.pasteboardReader) }
        } catch {
            res.send(error.response)
            return
        }
        switch action {
        case .copy: service.copy(body, in: handle, by: session) { res.send($0) { .json(DocumentJSON.copied($0)) } }
        case .select, .selectAll:
            let selection: (revision: Int, selection: Selection)
            do throws(APIError) { selection = try service.select(all: action == .selectAll, body.range, in: handle, by: session!) } catch {
                return res.send(error.response)
            }
            // In a cluster, answered once the other nodes can see it.
            service.replication.shareSelection(of: session!, in: handle) { result in
                res.send(result) { _ in .json(DocumentJSON.selected(selection)) }
            }
        case .cut: service.cut(body, in: handle, by: session) { res.send($0) { .json(DocumentJSON.action($0)) } }
        case .delete: service.delete(body, in: handle, by: session) { res.send($0) { .json(DocumentJSON.action($0)) } }
        case .paste: service.paste(body, in: handle, by: session) { res.send($0) { .json(DocumentJSON.action($0)) } }
        }
    }

    /// Each boolean is what the action's request would do for this caller: on `from`/`to` when
    /// given (checked as the request checks them), else on the caller's selection; paste
    /// reads `pasteboard` in `type` (default: plain text), as the request would.
    func canPerformActions(_ req: HTTPRequest, _ ctx: RequestContext) throws(APIError) -> HTTPResponse {
        let session = ctx.session
        let handle = try ctx.requestedDocument()
        try QueryParameters.allowOnly(req, ["pasteboard", "from", "to", "type"])
        let range = try Self.actionRange(from: try QueryParameters.position(req, "from"), to: try QueryParameters.position(req, "to"))
        let type = try Self.pasteType(req.queryValue("type"))
        let name = req.queryValue("pasteboard") ?? Pasteboard.generalName, reader = ctx.caller.pasteboardReader
        // Without a person there is no general to paste from: paste is off, not an error.
        let p = name == Pasteboard.generalName && reader.person == nil ? nil : try pasteboards.pasteboard(name, for: reader)
        let pasteable = p.map { p in type.map { p.items.first?[$0]?.string != nil } ?? p.hasStrings } ?? false
        let json = try handle.executor.sync { st throws(APIError) -> [UInt8] in
            let doc = st.document
            if let range {
                do throws(EditingTargetError) {
                    try EditingTarget.check(range.lowerBound, in: doc)
                    try EditingTarget.check(range.upperBound, in: doc)
                } catch { throw APIError(error) }
            }
            let selection = session.flatMap { doc.selection(for: $0.id) }
            let accepts = !st.editingDisabled && !st.savingError && !st.deleted
            let can = EditActionAvailability(selection: selection, range: range, hasSession: session != nil, acceptsChanges: accepts,
                                             secure: st.secure, hasText: doc.length > 0, pasteboardHasStrings: pasteable)
            let scope: UndoScope = session.map { .session($0.id) } ?? .document
            let um = doc.undoManager
            var w = JSONWriter(capacity: 256)
            w.beginObject()
            let offered: [(StaticString, Bool)] = [("cut", can.cut), ("copy", can.copy), ("paste", can.paste),
                                                   ("delete", can.delete), ("select", can.select), ("selectAll", can.selectAll)]
            for (action, allowed) in offered { w.key(action); w.bool(allowed) }
            w.key("undo"); w.bool(accepts && um.canUndo(scope))
            w.key("redo"); w.bool(accepts && um.canRedo(scope))
            w.key("undoMenuItemTitle"); w.string(um.undoMenuItemTitle(scope))
            w.key("redoMenuItemTitle"); w.string(um.redoMenuItemTitle(scope))
            // What a Paste menu item would say: where the text comes from when it is not the
            // caller's own general pasteboard.
            w.key("pasteMenuItemTitle"); w.string(name == Pasteboard.generalName ? "Paste" : "Paste from \(name)")
            w.key("pasteboard"); w.string(name)
            w.key("selection"); DocumentJSON.selection(selection, to: &w)
            w.endObject()
            return w.bytes
        }
        return .json(json)
    }
}
