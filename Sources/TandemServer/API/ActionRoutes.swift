import Dispatch
import TandemCore
import TandemHTTP

/// UIResponderStandardEditActions on a document: cut, copy, paste, delete, select,
/// selectAll, and canPerformAction as `GET …/actions`.
///
/// The target is `{"from","to"}` when given, else the session's selection (401 without a
/// session). Where text is needed (cut, copy, delete) an empty target is refused: an empty
/// selection is a state conflict (409 `empty_selection`), an empty explicit range invalid
/// input (422 `empty_range`); no selection at all is 409 `no_selection`. The rules are
/// TandemCore's (`EditingTarget`, `EditActionAvailability`); here they meet HTTP.
extension ServerContext {
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

    var actionEndpoints: [Endpoint] {
        var list: [Endpoint] = EditAction.allCases.map { action in
            var responses: [Endpoint.Response]
            switch action {
            case .copy: responses = [Endpoint.json(200, "Copied", Schemas.ref("CopyResult"))]
            case .select, .selectAll: responses = [Endpoint.json(200, "The selection", Schemas.ref("SelectResult"))]
            default: responses = [Endpoint.json(200, "The change as applied", Schemas.ref("ActionResult"))]
            }
            responses += [
                Endpoint.error(400, "Malformed JSON, field or type"),
                Endpoint.error(401, "Bad token, or no session where the selection is the target"),
                Endpoint.error(404, "No such document or pasteboard"),
                Endpoint.error(415, "Body is not JSON"),
            ]
            switch action {
            case .cut: responses.append(Endpoint.error(403, "Editing is disabled, or the document is secure (secure_document)"))
            case .copy: responses.append(Endpoint.error(403, "The document is secure (secure_document)"))
            case .paste, .delete: responses.append(Endpoint.error(403, "Editing is disabled"))
            default: break
            }
            switch action {
            case .cut, .copy, .delete: responses.append(Endpoint.error(409, "No selection, or an empty one"))
            case .paste: responses.append(Endpoint.error(409, "No selection, or no text on the pasteboard (nothing_to_paste)"))
            case .select: responses.append(Endpoint.error(409, "No selection to start from, or no text"))
            case .selectAll: responses.append(Endpoint.error(409, "No text"))
            }
            responses.append(Endpoint.error(422, "Range out of the text, splitting a surrogate pair, empty where text is needed, or a non-UTF-8 representation"))
            if action == .cut || action == .copy || action == .paste {
                responses.append(Endpoint.error(413, "The text is beyond the pasteboard's limits"))
            }
            if action == .cut || action == .paste || action == .delete || action == .copy {
                responses.append(Endpoint.error(503, "The store cannot save"))
            }
            return Endpoint(
                method: .post, path: "/documents/{id}/\(action.rawValue)", operationID: action.rawValue,
                summary: action.summary, tag: "Editing actions",
                parameters: action == .cut || action == .paste || action == .delete ? [Endpoint.header("Idempotency-Key", "Makes a resend safe")] : [],
                requestBody: action.fields.isEmpty ? JSONValue?.none : Endpoint.jsonBody(Schemas.object(
                    action.fields.sorted().map { f in
                        (f, f == "from" || f == "to" ? Schemas.nonNegative : Schemas.string)
                    }, required: []), required: false),
                responses: responses,
                handler: { [self] req, res in perform(action, req, res) }
            )
        }
        list.append(Endpoint(
            method: .get, path: "/documents/{id}/actions", operationID: "canPerformActions",
            summary: "canPerformAction for the calling session, as an edit menu shows it", tag: "Editing actions",
            parameters: [Endpoint.query("pasteboard", Schemas.string, "The pasteboard paste would read (default general)")],
            responses: [Endpoint.json(200, "What the menu offers", Schemas.ref("Actions")),
                        Endpoint.error(401, "Bad token"), Endpoint.error(404, "No such document or pasteboard")],
            handler: { [self] req, res in res.respond { () throws(APIError) in try canPerformActions(req) } }
        ))
        return list
    }

    func decodeAction(_ action: EditAction, _ req: HTTPRequest) throws(APIError) -> ActionRequest {
        let body = try RequestBody.object(req)
        try body.allowOnly(action.fields)
        let from = try body.int("from"), to = try body.int("to")
        var range: Range<Int>?
        switch (from, to) {
        case (nil, nil): break
        case let (f?, t?):
            guard f >= 0, t >= f else { throw .unprocessable("need 0 <= from <= to, got \(f)...\(t)", code: "position_out_of_range") }
            range = f..<t
        default: throw .invalidField(from == nil ? "from" : "to", "from and to go together")
        }
        var type: String?
        if let given = try body.string("type") {
            guard let t = PasteboardType.identifier(for: given) else {
                throw .badRequest("type: '\(given)' is neither a UTI nor a MIME type", code: "invalid_type")
            }
            type = t
        }
        return ActionRequest(range: range, pasteboard: try body.string("pasteboard") ?? Pasteboard.generalName, type: type)
    }

    func perform(_ action: EditAction, _ req: HTTPRequest, _ res: HTTPResponder) {
        let session: Session?
        let handle: DocumentHandle
        let body: ActionRequest
        do throws(APIError) {
            session = try self.session(of: req)
            handle = try document(req.parameters["id"] ?? "")
            body = try decodeAction(action, req)
            if action == .select || action == .selectAll, session == nil { throw .sessionRequired(action.rawValue) }
            // The pasteboard must exist before anything is done.
            if action == .cut || action == .copy || action == .paste { _ = try pasteboards.pasteboard(body.pasteboard) }
        } catch {
            res.send(error.response)
            return
        }
        switch action {
        case .copy: service.copy(body, in: handle, by: session) { res.send($0) { .json(DocumentJSON.copied($0)) } }
        case .select, .selectAll:
            res.respond { () throws(APIError) in
                let selection = try service.select(all: action == .selectAll, body.range, in: handle, by: session!)
                return .json(DocumentJSON.selected(selection))
            }
        case .cut: service.cut(body, in: handle, by: session) { res.send($0) { .json(DocumentJSON.action($0)) } }
        case .delete: service.delete(body, in: handle, by: session) { res.send($0) { .json(DocumentJSON.action($0)) } }
        case .paste: service.paste(body, in: handle, by: session) { res.send($0) { .json(DocumentJSON.action($0)) } }
        }
    }

    func canPerformActions(_ req: HTTPRequest) throws(APIError) -> HTTPResponse {
        let session = try self.session(of: req)
        let handle = try document(req.parameters["id"] ?? "")
        let p = try pasteboards.pasteboard(req.queryValue("pasteboard") ?? Pasteboard.generalName)
        let json = handle.state.withLock { st -> [UInt8] in
            let doc = st.document
            let selection = session.flatMap { doc.selection(for: $0.id) }
            let accepts = !st.editingDisabled && !st.savingError && !st.deleted
            let can = EditActionAvailability(selection: selection, hasSession: session != nil, acceptsChanges: accepts,
                                             secure: st.secure, hasText: doc.length > 0, pasteboardHasStrings: p.hasStrings)
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
            // general pasteboard everyone shares.
            w.key("pasteMenuItemTitle"); w.string(p.name == Pasteboard.generalName ? "Paste" : "Paste from \(p.name)")
            w.key("pasteboard"); w.string(p.name)
            w.key("selection"); DocumentJSON.selection(selection, to: &w)
            w.endObject()
            return w.bytes
        }
        return .json(json)
    }
}

extension APIError {
    /// The answer to an editing action whose target `EditingTarget` refused; `selecting` for
    /// select, whose missing selection is a missing caret.
    init(_ error: EditingTargetError, selecting: Bool = false) {
        switch error {
        case .positionOutOfRange(let p, let length):
            self = .unprocessable("position \(p) is outside the document (length \(length))", code: "position_out_of_range")
        case .splitsSurrogatePair(let p):
            self = .unprocessable("position \(p) splits a surrogate pair", code: "splits_surrogate_pair")
        case .emptyRange(let r):
            self = .unprocessable("the range \(r.lowerBound)...\(r.upperBound) is empty", code: "empty_range")
        case .sessionRequired:
            self = .sessionRequired("acting on the selection (or give {\"from\",\"to\"})")
        case .noSelection where selecting:
            self = .conflict("no_selection", "the session has no caret to select a word around: give {\"from\",\"to\"}")
        case .noSelection:
            self = .conflict("no_selection", "the session has no selection in this document: PUT …/selection first, or give {\"from\",\"to\"}")
        case .emptySelection:
            self = .conflict("empty_selection", "the selection is empty")
        case .noText:
            self = .conflict("no_text", "the document is empty: there is nothing to select")
        }
    }
}
