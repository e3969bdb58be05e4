import Dispatch
import TandemCore
import TandemHTTP

/// The endpoints of `ActionController`: paths, OpenAPI descriptions and handlers.
extension ActionController {
    var endpoints: [Endpoint] {
        var list: [Endpoint] = EditAction.allCases.map { action in
            var responses: [Endpoint.Response]
            switch action {
            case .copy: responses = [Endpoint.json(200, "Copied", Schemas.ref("CopyResult"))]
            case .select, .selectAll: responses = [Endpoint.json(200, "The selection", Schemas.ref("SelectResult"))]
            default: responses = [Endpoint.json(200, "The change as applied", Schemas.ref("ActionResult"))]
            }
            responses += [
                Endpoint.error(400, "Malformed JSON, field, type or query parameter"),
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
                responses.append(Endpoint.error(413, "The text is beyond the pasteboard's limits or the session's pasteboard budget"))
            }
            if action == .cut || action == .copy {
                responses.append(Endpoint.error(507, "All pasteboards together would pass their budget"))
            }
            if action == .cut || action == .paste || action == .delete || action == .copy {
                responses.append(Endpoint.error(503, "The store cannot save"))
            }
            return Endpoint(
                method: .post, path: "/documents/{id}/\(action.rawValue)", operationID: action.rawValue,
                summary: action.summary, tag: "Editing actions",
                parameters: (action == .cut || action == .paste || action == .delete ? [Endpoint.header("Idempotency-Key", "Makes a resend safe")] : [])
                    + (action == .paste ? [Endpoint.query("type", Schemas.string, "The representation to paste (a UTI or MIME type), as the body's type; both given must agree")] : []),
                requestBody: action.fields.isEmpty ? JSONValue?.none : Endpoint.jsonBody(Schemas.object(
                    action.fields.sorted().map { f in
                        (f, f == "from" || f == "to" ? Schemas.nonNegative : Schemas.string)
                    }, required: []), required: false),
                responses: responses,
                handler: { [self] req, ctx, res in perform(action, req, ctx, res) }
            )
        }
        list.append(Endpoint(
            method: .get, path: "/documents/{id}/actions", operationID: "canPerformActions",
            summary: "canPerformAction for the caller: what each action's request would do on from/to, else on the caller's selection", tag: "Editing actions",
            parameters: [Endpoint.query("pasteboard", Schemas.string, "The pasteboard paste would read (default general)"),
                         Endpoint.query("from", Schemas.nonNegative, "With to: ask about this range, as a request giving {\"from\",\"to\"} would act on it"),
                         Endpoint.query("to", Schemas.nonNegative, "With from: the range's end"),
                         Endpoint.query("type", Schemas.string, "The representation paste would take (a UTI or MIME type; default plain text)")],
            responses: [Endpoint.json(200, "What the menu offers", Schemas.ref("Actions")),
                        Endpoint.error(400, "An unknown query parameter, a bad position or type, or from without to"),
                        Endpoint.error(401, "Bad token"), Endpoint.error(404, "No such document or pasteboard"),
                        Endpoint.error(422, "The range is outside the text, backwards, or splits a surrogate pair")],
            handler: { [self] req, ctx, res in res.respond { () throws(APIError) in try canPerformActions(req, ctx) } }
        ))
        return list
    }
}
