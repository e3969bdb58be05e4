import TandemHTTP

/// What guests may do (`--guests`): callers who are nobody in particular, with neither a
/// user's session, nor a share link (an owner's choice to let its holder in), nor the
/// operator's key. `edit` is everything the documents' modes allow; `read` lets guests read
/// what the modes let them read (and keep a session and a selection), and change nothing,
/// shared pasteboards included; `off` lets them only sign in (`POST /sessions` with a user) and ask
/// whether the server is up. Runs after authentication, before the documents' own rules.
struct GuestsMiddleware: RouteMiddleware {
    let guests: GuestPolicy

    /// Routes every caller may reach, signed in or not.
    static let alwaysOpen: Set<String> = ["createSession", "signUp", "accountOptions", "health", "ping", "openapi", "metrics"]

    func wrap(_ next: @escaping RouteHandler, for route: Endpoint) -> RouteHandler {
        guard guests != .edit else { return next }
        let open = Self.alwaysOpen.contains(route.operationID)
        let reads = Self.onlyReads(route)
        return { [guests] request, context, responder in
            guard context.caller.isGuest, !open else { return next(request, context, responder) }
            switch guests {
            case .edit: next(request, context, responder)
            case .read:
                guard reads else { return responder.send(APIError.guestsReadOnly.response) }
                next(request, context, responder)
            case .off:
                responder.send(APIError.signInRequired.response)
            }
        }
    }

    /// Routes that change nothing but the guest's own session: a document route whose
    /// permission is `read` (a selection included) but `copy`, which writes a pasteboard
    /// others read, and the reads of sessions, users and pasteboards (`GET`).
    static func onlyReads(_ route: Endpoint) -> Bool {
        switch route.access {
        case .document(let permission): permission == .read && route.operationID != "copy"
        case .decided: false
        case .none: route.method == .get || route.method == .head || route.operationID == "renameSession" || route.operationID == "endSession"
        }
    }
}

/// `--guests edit|read|off` (see `GuestsMiddleware`).
public enum GuestPolicy: String, Sendable, CaseIterable {
    case edit, read, off
}

extension Caller {
    /// Nobody in particular: no user's session, no share link, not the operator.
    var isGuest: Bool { !isOperator && link == nil && session?.userID == nil }
}
