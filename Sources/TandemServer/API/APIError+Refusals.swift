import TandemCore

/// The refusals the edge and the documents answer with by name (their codes are the contract's:
/// docs/API.md), gathered so the list of what a client may see is in one place.
extension APIError {
    // MARK: Access

    static func unknownSession(_ id: String) -> APIError {
        .unprocessable("no live session '\(id)'", code: "unknown_session")
    }

    static func viewerLinkGrantsLess(_ mode: AccessMode) -> APIError {
        .conflict("link_grants_less", "this document is \(mode.rawValue): \(mode == .open ? "anyone" : "any session") with its address "
                  + "may edit it, so a viewer link would grant less than the address does; make it locked or private first, "
                  + "or share an editor link")
    }

    static func viewerLinksWork(_ mode: AccessMode, count: Int) -> APIError {
        .conflict("viewer_links_work", "\(count) working viewer link\(count == 1 ? "" : "s") would let \(mode == .open ? "anyone" : "any session") "
                  + "holding \(count == 1 ? "it" : "them") edit once the document is \(mode.rawValue): revoke \(count == 1 ? "it" : "them") first")
    }

    // MARK: Credentials

    static let invalidLink = APIError(.unauthorized, "invalid_link", "the share link is unknown, revoked or expired")
    static let invalidAdminKey = APIError(.unauthorized, "invalid_admin_key", "the operator key is wrong, or the server has none")

    // MARK: The database

    static let databaseUnavailable = APIError(
        .serviceUnavailable, "database_unavailable",
        "the database cannot be reached right now; nothing was changed, try again shortly",
        headers: ["Retry-After": "1"]
    )

    static let databaseBusy = APIError(
        .serviceUnavailable, "database_busy",
        "too many changes are waiting for the database; nothing was changed, try again shortly",
        headers: ["Retry-After": "1"]
    )

    // MARK: Guests

    static let guestsReadOnly = APIError(.forbidden, "guests_read_only", "on this server guests may only read: sign in to change anything")
    static let signInRequired = APIError(.unauthorized, "sign_in_required", "this server lets only people who have signed in use it",
                                         headers: ["WWW-Authenticate": #"Bearer realm="tandem""#])
    static let guestsOff = APIError(.forbidden, "guests_off", "this server has no guest sessions: sign in with user and password")

    // MARK: Idempotency

    static let idempotentAnswerWithheld = APIError(
        .conflict, "idempotent_answer_withheld",
        "this Idempotency-Key was already answered, and that answer holds a secret (a link token) that is not sent again "
            + "without a session: a key alone does not prove who sent the first request; what it did stands, so do not "
            + "resend it: use a session's bearer token with keys to get replays")

    // MARK: The change log

    static func revisionInFuture(_ since: Int, current: Int) -> APIError {
        .unprocessable("since \(since) is after the current revision \(current)", code: "revision_in_future")
    }
}
