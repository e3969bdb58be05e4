import TandemHTTP

/// Keeps work that grows with its input off the event loop that read it: a body of
/// `heavyBodyBytes` or more, a whole-text operation (`wholeTextOperations`) on a text of
/// `heavyTextLength` units or more, work that grows with the change log
/// (`historyOperations`) over a long one, and every read of the store (`storeReadOperations`)
/// runs on `pool`, in its document's lane; every other connection on that loop would wait
/// for it otherwise. So does any request for a document while heavy jobs of its own are
/// queued or running: on the loop it would wait for the lock they hold.
struct HeavyWorkMiddleware: RouteMiddleware {
    let pool: HeavyWorkPool

    /// Bodies this large are handled on the pool, not on the event loop that read them.
    static let heavyBodyBytes = 256 * 1024
    /// So are the operations in `wholeTextOperations` on a text this long (UTF-16 units).
    static let heavyTextLength = 256 * 1024
    /// Operations whose work grows with the document's text (they copy, diff or send all of
    /// it, or a group that may be as large), unlike a keystroke, whose cost hardly does.
    static let wholeTextOperations: Set<String> = [
        "getDocument", "getDocumentText", "replaceDocumentText", "listEdits", "documentEvents",
        "save", "getVersionText", "revertToVersion", "undo", "redo", "cut", "copy", "paste", "delete", "getAuthorship",
    ]

    /// Operations whose work grows with the change log rather than the text: a page of the
    /// log, an undo or redo mapped through every later change.
    static let historyOperations: Set<String> = ["listEdits", "undo", "redo", "getAuthorship"]

    /// Operations that read the store (a saved version's text, of any size, from SQLite or
    /// across the network from PostgreSQL): never on a loop, whatever the current text's length.
    static let storeReadOperations: Set<String> = ["listVersions", "getVersionText", "revertToVersion", "diffVersions", "nameVersion", "deleteVersion", "listDocuments",
                                                   "shareWithUser", "createPasteboard", "updatePasteboard"]


    func wrap(_ next: @escaping RouteHandler, for route: Endpoint) -> RouteHandler {
        let wholeText = Self.wholeTextOperations.contains(route.operationID)
        let history = Self.historyOperations.contains(route.operationID)
        let readsStore = Self.storeReadOperations.contains(route.operationID)
        let operation = route.operationID
        return { [pool] request, context, responder in
            // The document `AccessMiddleware` found; its length read without its lock.
            let textLength = context.document?.lengthHint.load(ordering: .relaxed) ?? 0
            let heavy = readsStore || request.body.count >= Self.heavyBodyBytes
                || (wholeText && textLength >= Self.heavyTextLength)
                || (history && context.document.map { Self.historyIsHeavy(operation, request, $0) } ?? false)
            if let document = context.document, heavy || document.heavyJobs.load(ordering: .relaxed) > 0 {
                // Behind the document's heavy jobs, in order, as the loop would have waited.
                pool.async(for: document) { next(request, context, responder) }
            } else if heavy {
                pool.async(lane: "") { next(request, context, responder) }
            } else {
                next(request, context, responder)
            }
        }
    }

    /// Whether the changes a request reads or maps through are too many for a loop: the
    /// units a page of `…/edits` would copy, the splices an undo (of `group=`, or of any
    /// group in the log) maps its inverse through. Counted in O(1) under the document's
    /// lock, if it is free: when another thread holds it (heavy work, most likely), the
    /// request goes to the pool rather than have the loop wait.
    static func historyIsHeavy(_ operation: String, _ request: HTTPRequest, _ handle: DocumentHandle) -> Bool {
        if operation == "listEdits" {
            let since = request.queryValue("since").flatMap { Int($0) } ?? 0
            return handle.executor.syncIfIdle { $0.document.loggedUnits(since: max(0, since)) }
                .map { $0 >= Self.heavyTextLength } ?? true
        }
        // Authorship of a saved version reads the store, as does that of a revision older than
        // the log (a saved version's, if one has it).
        if operation == "getAuthorship" {
            if request.queryValue("version") != nil { return true }
            if let revision = request.queryValue("revision").flatMap({ Int($0) }),
               handle.executor.syncIfIdle({ revision < $0.document.firstAvailableRevision - 1 }) ?? true { return true }
        }
        // Authorship at an earlier revision undoes every change since on a copy of the units.
        let parameter = operation == "getAuthorship" ? "revision" : "group"
        guard operation != "getAuthorship" || request.queryValue("revision") != nil else { return false }
        let since = request.queryValue(parameter).flatMap { Int($0) }.map { max(0, $0 - 1) } ?? 0
        return handle.executor.syncIfIdle { $0.document.loggedSplices(since: since) }
            .map { $0 > DocumentService.inlineRebaseWork } ?? true
    }
}
