import Foundation
import Logging
import TandemHTTP
import TandemStore

/// Who a new session belongs to: local accounts (sign-in, sign-up), an embedding
/// application's tokens, a trusted proxy's users and the browser's login cookie. Every check
/// runs on the heavy-work pool's sign-in lane; a session is answered only once it is stored.
///
/// Signing in to a local account: `POST /sessions {"user","password"}` makes a session that
/// belongs to the user. The check runs on the heavy-work pool, one at a time (`lane`): scrypt
/// takes 32 MiB and is slow by design, so a burst of sign-ins holds neither a loop nor more
/// than one check's memory. A wrong password and an unknown name are one answer, `401
/// invalid_credentials`, in the same time; failures count toward the address's `auth` limit
/// and the account's throttle (`AccountThrottle`), whose `429` comes before any check.
final class AccountController: Sendable {
    let configuration: ServerConfiguration
    let service: DocumentService
    let store: any DocumentStore
    let sessions: SessionRegistry
    let pasteboards: PasteboardRegistry
    let logger: Logger
    let metrics: Metrics
    let clients: ClientAddressResolver
    let rateLimiter: RateLimiter
    let sessionActivity: SessionActivity
    /// Failed sign-ins per account.
    let accountThrottle = AccountThrottle()

    init(_ context: ServerContext) {
        configuration = context.configuration
        service = context.service
        store = context.store
        sessions = context.sessions
        pasteboards = context.pasteboards
        logger = context.logger
        metrics = context.metrics
        clients = context.clients
        rateLimiter = context.rateLimiter
        sessionActivity = context.sessionActivity
    }

    static let signInLane = "sign-in"
    /// Checked when the name is unknown, so that the answer takes as long as for a known one.
    private static let stand = PasswordHash.make("no such user: the time of a check")

    func signIn(user name: String, password: String, request: HTTPRequest, _ res: HTTPResponder) {
        let client = clients.client(of: request)
        let remember = Self.usesLoginCookie(request)
        service.heavyWork.async(lane: Self.signInLane) { [self] in
            res.send(signInNow(name: name, password: password, client: client, remember: remember))
        }
    }

    /// A session of the user a trusted proxy names (`--auth-header`), made on first sight
    /// with no password (so that it can sign in no other way).
    func signIn(proxyUser name: String, _ res: HTTPResponder) {
        service.heavyWork.async(lane: Self.signInLane) { [self] in
            do {
                if let user = try store.user(named: name) { return res.send(startSession(of: user, updated: nil)) }
                let user = StoredUser(id: Accounts.newID(), name: name, displayName: name, passwordHash: nil, created: service.now())
                do {
                    try store.perform([.upsertUser(user)])
                } catch StoreError.conflict {
                    // Made meanwhile, on another node or by another request.
                    guard let made = try store.user(named: name) else { return res.send(APIError.storageFailing.response) }
                    return res.send(startSession(of: made, updated: nil))
                }
                res.send(startSession(of: user, updated: nil))
            } catch {
                logger.error("could not sign in a proxy's user: \(error)")
                res.send(APIError.storageFailing.response)
            }
        }
    }

    private func signInNow(name: String, password: String, client: IPAddress?, remember: Bool) -> HTTPResponse {
        let key = UserName.normalized(name)
        // The count every node shares (read for every name alike, see AccountThrottle).
        let shared: AccountThrottle.Bucket?
        do {
            shared = try key.flatMap { key throws(StoreError) in try store.meta(AccountThrottle.metaKey(key)) }.flatMap(AccountThrottle.decode)
        } catch {
            logger.error("could not read sign-in failures: \(error)")
            return APIError.storageFailing.response
        }
        if let key, let wait = accountThrottle.wait(for: key, stored: shared, now: service.now()) {
            let after = max(1, Int(wait.rounded(.up)))
            return APIError(.tooManyRequests, "rate_limited", "too many failed sign-ins to this account; retry in \(after) s",
                            headers: ["Retry-After": String(after)]).response
        }
        let stored: StoredUser?
        do {
            stored = try key.flatMap { key throws(StoreError) in try store.user(named: key) }
        } catch {
            logger.error("could not read users: \(error)")
            return APIError.storageFailing.response
        }
        let hash = stored?.passwordHash.flatMap(PasswordHash.init(encoded:))
        let matches = (hash ?? Self.stand)?.verify(password) ?? false
        guard let user = stored, hash != nil, matches else {
            if let key { accountThrottle.failed(key, now: service.now()) }
            if let key {
                // Stored before the answer, so the next try on any node counts it. A name nobody
                // has writes one shared row instead, so the answer takes as long either way.
                let bucket = accountThrottle.failing(shared, now: service.now())
                let row = stored != nil ? AccountThrottle.metaKey(key) : AccountThrottle.unknownNamesKey
                do {
                    try store.perform([.setMeta(row, AccountThrottle.encode(bucket))])
                } catch {
                    logger.warning("could not store a failed sign-in: \(error)")
                }
            }
            if let client { _ = rateLimiter.take(.auth, for: client) }
            return APIError(.unauthorized, "invalid_credentials", "no account with that name and password").response
        }
        accountThrottle.succeeded(user.name)
        if shared != nil { store.submit([.setMeta(AccountThrottle.metaKey(user.name), nil)]) { _ in } }
        var rehashed: StoredUser?
        if let hash, hash.needsRehash, let fresh = PasswordHash.make(password) {
            rehashed = user
            rehashed?.passwordHash = fresh.encoded
        }
        return startSession(of: user, updated: rehashed, remember: remember)
    }

    /// `startSession`, and from Tandem's page (`remember`) a login so the browser stays
    /// signed in (`AccountController+BrowserLogin.swift`).
    func startSession(of user: StoredUser, updated: StoredUser?, remember: Bool) -> HTTPResponse {
        var answer = startSession(of: user, updated: updated)
        if remember, answer.status == .created, let login = startLogin(of: user) {
            answer.headers.add("Set-Cookie", loginCookie(login))
        }
        return answer
    }

    /// A new session of `user`, stored (with the user's changed record, if any: a new hash, a
    /// token's new display name) before it is answered `201`. An application's token gives
    /// it that token's grants and expiry.
    func startSession(of user: StoredUser, updated: StoredUser?, token identity: JWTIdentity? = nil) -> HTTPResponse {
        var writes: [StoreWrite] = updated.map { [.upsertUser($0)] } ?? []
        let (session, token) = sessions.create(name: user.displayName, userID: user.id, userName: user.name, now: service.now(),
                                               expires: identity?.expires, grants: identity?.grants ?? DocumentGrants())
        writes.append(.upsertSession(session.stored(name: session.name)))
        do {
            try store.perform(writes)
        } catch {
            sessions.remove(id: session.id)
            logger.error("could not store a session of \(user.id): \(error)")
            return APIError.storageFailing.response
        }
        metrics.increment("tandem_sessions_created_total")
        return .json(SessionController.sessionJSON(session, token: token), status: .created)
    }

    /// `GET /users/me`: who the caller's session belongs to.
    func currentUser(_ session: Session) throws(APIError) -> HTTPResponse {
        var w = JSONWriter(capacity: 160)
        w.beginObject()
        if let id = session.userID {
            let user: StoredUser?
            do { user = try store.user(id: id) } catch { throw .storageFailing }
            guard let user else { throw .unauthorized }
            w.key("id"); w.string(user.id)
            w.key("name"); w.string(user.name)
            w.key("displayName"); w.string(user.displayName)
            w.key("guest"); w.bool(false)
        } else {
            w.key("id"); w.null()
            w.key("name"); w.null()
            w.key("displayName"); w.string(session.name)
            w.key("guest"); w.bool(true)
        }
        w.key("session"); w.string(session.id)
        w.endObject()
        return .json(w.bytes)
    }
}
