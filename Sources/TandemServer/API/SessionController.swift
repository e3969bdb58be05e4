import Logging
import TandemHTTP
import TandemStore

/// Sessions and the accounts they belong to: starting one (as a guest, or signed in through
/// `AccountController`), reading, renaming, renewing and ending the caller's own, signing up,
/// and the server's account options.
final class SessionController: RouteController {
    let configuration: ServerConfiguration
    let service: DocumentService
    let store: any DocumentStore
    let sessions: SessionRegistry
    let pasteboards: PasteboardRegistry
    let logger: Logger
    let metrics: Metrics
    let proxyIdentity: ProxyIdentity?
    let sessionActivity: SessionActivity
    /// Sign-ins, sign-ups and the browser's login.
    let accounts: AccountController

    init(_ context: ServerContext, accounts: AccountController) {
        configuration = context.configuration
        service = context.service
        store = context.store
        sessions = context.sessions
        pasteboards = context.pasteboards
        logger = context.logger
        metrics = context.metrics
        proxyIdentity = context.proxyIdentity
        sessionActivity = context.sessionActivity
        self.accounts = accounts
    }

    /// A new session, answered once it is stored: refused, it is gone again (nobody has its
    /// token yet).
    func createSession(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        let name: String?
        do throws(APIError) {
            let body = try RequestBody.object(req, allowEmpty: true)
            try body.allowOnly(["name", "user", "password", "jwt"])
            let user = try body.string("user"), password = try body.string("password")
            if let jwt = try body.string("jwt") {
                guard user == nil, password == nil, try body.string("name") == nil else {
                    throw .invalidField("jwt", "goes alone: the token names the user and the display name")
                }
                return accounts.signIn(jwt: jwt, request: req, res)
            }
            if user != nil || password != nil {
                guard try body.string("name") == nil else {
                    throw .invalidField("name", "a user's sessions carry the user's display name")
                }
                guard let user, let password else { throw .invalidField(user == nil ? "user" : "password", "user and password go together") }
                return accounts.signIn(user: user, password: password, request: req, res)
            }
            if let login = AccountController.loginToken(req) {
                guard try body.string("name") == nil else { throw .invalidField("name", "a user's sessions carry the user's display name") }
                return accounts.signIn(login: login, res)
            }
            if let user = try proxyIdentity?.user(of: req) {
                guard try body.string("name") == nil else { throw .invalidField("name", "a user's sessions carry the user's display name") }
                return accounts.signIn(proxyUser: user, res)
            }
            guard configuration.guests != .off else { throw .guestsOff }
            name = try sessionName(req, allowEmpty: true)
        } catch {
            return res.send(error.response)
        }
        let (session, token) = sessions.create(name: name, now: service.now())
        store.submit([.upsertSession(session.stored(name: session.name))], delivery: service.delivery()) { [self] result in
            if case .failure(let error) = result {
                sessions.remove(id: session.id)
                logger.error("could not store session: \(error)")
                return res.send(APIError.storageFailing.response)
            }
            metrics.increment("tandem_sessions_created_total")
            res.send(.json(Self.sessionJSON(session, token: token), status: .created))
        }
    }

    /// A new name, stored before it is answered or shown: refused, the old name stays. Runs
    /// as a pasteboard writer, where a session's end runs, so that it never lands while an
    /// end is being stored (which could still be refused and the session reinstated).
    func renameSession(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        let s: Session, name: String
        do throws(APIError) {
            s = try ctx.requireSession(for: "PATCH /sessions/me")
            guard let given = try sessionName(req, allowEmpty: false) else { throw .invalidField("name", "must be 1 to 100 characters") }
            name = given
        } catch {
            return res.send(error.response)
        }
        pasteboards.serially { [self] done in
            let finish: @Sendable (HTTPResponse) -> Void = { response in
                res.send(response)
                done()
            }
            guard sessions.session(id: s.id) != nil else { return finish(APIError.unauthorized.response) }
            store.submit([.upsertSession(s.stored(name: name))], delivery: service.delivery()) { [self] result in
                if case .failure(let error) = result {
                    logger.error("could not store the name of session \(s.id): \(error)")
                    return finish(APIError.storageFailing.response)
                }
                guard let renamed = sessions.rename(id: s.id, to: name) else {
                    // Expired while the name was stored: the row written back must not outlive it.
                    store.submit([.deleteSession(s.id)]) { _ in }
                    return finish(APIError.unauthorized.response)
                }
                broadcastPresence(ofSession: s.id)
                finish(.json(Self.sessionJSON(renamed, token: nil)))
            }
        }
    }

    /// The `name` of a create or rename body, if given: 1 to 100 characters.
    private func sessionName(_ req: HTTPRequest, allowEmpty: Bool) throws(APIError) -> String? {
        let body = try RequestBody.object(req, allowEmpty: allowEmpty)
        try body.allowOnly(["name"])
        let name = try body.string("name")
        if let name, name.isEmpty || name.count > 100 {
            throw .invalidField("name", "must be 1 to 100 characters")
        }
        return name
    }

    /// Everyone looking at a document with this session in it sees its new name.
    private func broadcastPresence(ofSession id: String) {
        for handle in service.handles.present(session: id) { service.events.broadcastPresence(handle) }
    }

    /// A session as JSON, with its bearer token only in the answer that starts it.
    static func sessionJSON(_ s: Session, token: String?) -> [UInt8] {
        var w = JSONWriter(capacity: 160)
        w.beginObject()
        w.key("id"); w.string(s.id)
        if let token { w.key("token"); w.string(token) }
        w.key("name"); w.string(s.name)
        w.key("color"); w.string(s.color)
        if let user = s.userID { w.key("user"); w.string(user) }
        if let expires = s.expires { w.key("expires"); w.double(expires) }
        w.endObject()
        return w.bytes
    }
}
