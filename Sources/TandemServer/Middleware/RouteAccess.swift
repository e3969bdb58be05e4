import TandemHTTP

/// What each document route needs (docs/API.md, "Access", says the same in one table). Every
/// route whose path names a document must be here: `makeRouter` refuses to start otherwise,
/// so a new route cannot slip through unchecked.
enum RouteAccess {
    static func rule(for operationID: String) -> AccessRule? {
        switch operationID {
        case "getDocument", "getDocumentText", "listEdits", "documentEvents", "presence", "setSelection",
             "getHistory", "listVersions", "getVersionText", "canPerformActions", "copy", "select", "selectAll",
             "getAuthorship", "diffVersions":
            return .document(.read)
        case "edit", "replaceDocumentText", "beginUndoGrouping", "endUndoGrouping", "save", "revertToVersion", "nameVersion",
             "cut", "paste", "delete", "disableUndoRegistration", "enableUndoRegistration":
            return .document(.edit)
        case "deleteDocument", "deleteVersion", "getAccess", "setMember", "shareWithUser", "removeMember", "createLink", "revokeLink":
            return .document(.owner)
        case "undo", "redo":
            return .decided { request, hasSession in documentScope(request, hasSession) ? .othersWork : .edit }
        case "clearHistory":
            return .decided { request, hasSession in documentScope(request, hasSession) ? .owner : .ownHistory }
        case "updateHistory":
            return .decided { request, hasSession in
                guard documentScope(request, hasSession) else { return .ownHistory }
                return bodyKeys(request).contains("levelsOfUndo") ? .owner : .othersWork
            }
        case "updateDocument":
            return .decided { request, _ in
                let keys = bodyKeys(request)
                if !keys.isDisjoint(with: ownersFields) { return .owner }
                return keys.contains("title") ? .rename : .edit
            }
        default:
            return nil
        }
    }

    /// The fields of `PATCH /documents/{id}` only the owner may change.
    static let ownersFields: Set<String> = ["access", "owner", "secure", "editingDisabled", "levelsOfUndo"]

    /// Whether the request acts on the document's undo manager as a whole (`scope=document`,
    /// the default without a session).
    static func documentScope(_ request: HTTPRequest, _ hasSession: Bool) -> Bool {
        switch request.queryValue("scope") {
        case "document"?: true
        case nil: !hasSession
        default: false
        }
    }

    /// The most a `PATCH` of a document's or a history's fields may be: their values are short
    /// (a title of 500 characters, a name of 200), and the body is read to decide who may
    /// send it before the request could go off the event loop.
    static let metadataBodyBytes = 64 * 1024

    /// `413 body_too_large` for a metadata `PATCH` longer than `metadataBodyBytes`: its route
    /// refuses it before reading it, as `bodyKeys` never parses it.
    static func checkMetadataBody(_ request: HTTPRequest) throws(APIError) {
        guard request.body.count <= metadataBodyBytes else {
            throw APIError(.payloadTooLarge, "body_too_large", "this body may be at most \(metadataBodyBytes) bytes")
        }
    }

    /// The members of a JSON object body (none when it is not one, or too long to be a
    /// metadata `PATCH`: the route then says why, before changing anything).
    static func bodyKeys(_ request: HTTPRequest) -> Set<String> {
        guard !request.body.isEmpty, request.body.count <= metadataBodyBytes, let keys = (try? JSONParser.parse(request.body))?.objectKeys else { return [] }
        return Set(keys)
    }
}
