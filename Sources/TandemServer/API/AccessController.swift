import TandemCore
import TandemStore
import TandemHTTP

/// Who may use a document: its members and share links, and the operator's end of any session.
final class AccessController: RouteController {
    let service: DocumentService
    let store: any DocumentStore
    let sessions: SessionRegistry
    let sessionActivity: SessionActivity

    init(_ context: ServerContext) {
        service = context.service
        store = context.store
        sessions = context.sessions
        sessionActivity = context.sessionActivity
    }

    func accessJSON(_ rules: AccessRules) -> [UInt8] {
        DocumentJSON.access(rules) { [sessions] person in sessions.name(ofPerson: person) }
    }

    func setMember(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        let handle: DocumentHandle, role: Role
        do throws(APIError) {
            handle = try ctx.requestedDocument()
            let body = try RequestBody.object(req, allowEmpty: false)
            try body.allowOnly(["role"])
            guard let name = try body.string("role"), let r = Role(name: name), r != .owner else {
                throw .invalidField("role", "must be editor or viewer")
            }
            role = r
        } catch {
            return res.send(error.response)
        }
        let session = req.parameters["session"] ?? ""
        service.access.changeAccess(.grant(session: session, role: role), of: handle) { [self] in res.send($0) { .json(accessJSON($0)) } }
    }

    /// `POST …/members {"user","role"}`: shares with a user by sign-in name. Runs off the
    /// event loop (`storeReadOperations`): it reads the user from the store.
    func shareWithUser(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        let handle: DocumentHandle, role: Role, user: StoredUser
        do throws(APIError) {
            handle = try ctx.requestedDocument()
            let body = try RequestBody.object(req, allowEmpty: false)
            try body.allowOnly(["user", "role"])
            guard let r = try body.string("role").flatMap(Role.init(name:)), r != .owner else {
                throw .invalidField("role", "must be editor or viewer")
            }
            guard let name = try body.string("user"), let key = UserName.normalized(name) else {
                throw .invalidField("user", "is required: a user's sign-in name")
            }
            let found: StoredUser?
            do { found = try store.user(named: key) } catch { throw .storageFailing }
            guard let found else {
                throw .unprocessable("no user signs in as '\(key)'", code: "unknown_user")
            }
            (role, user) = (r, found)
        } catch {
            return res.send(error.response)
        }
        sessions.noteUser(id: user.id, displayName: user.displayName)
        service.access.changeAccess(.grantPerson(Session.userPrefix + user.id, role: role), of: handle) { [self] in
            res.send($0) { .json(accessJSON($0)) }
        }
    }

    func removeMember(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        let handle: DocumentHandle
        do throws(APIError) { handle = try ctx.requestedDocument() } catch { return res.send(error.response) }
        let session = req.parameters["session"] ?? ""
        service.access.changeAccess(.revokeMember(session: session), of: handle) { res.send($0) { _ in HTTPResponse(status: .noContent) } }
    }

    /// Longest a share link may be made to last: a year.
    static let maxLinkLifetime = 31_536_000

    func createLink(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        let handle: DocumentHandle, role: Role, expiresIn: Int?
        do throws(APIError) {
            handle = try ctx.requestedDocument()
            let body = try RequestBody.object(req, allowEmpty: false)
            try body.allowOnly(["role", "expiresIn"])
            guard let name = try body.string("role"), let r = Role(name: name) else {
                throw .invalidField("role", "must be owner, editor or viewer")
            }
            role = r
            expiresIn = try body.int("expiresIn")
            if let e = expiresIn, !(1...Self.maxLinkLifetime).contains(e) {
                throw .invalidField("expiresIn", "must be 1 to \(Self.maxLinkLifetime) seconds")
            }
        } catch {
            return res.send(error.response)
        }
        let (link, token) = ShareLink.make(role: role, now: service.now(), expiresIn: expiresIn.map(Double.init))
        service.access.changeAccess(.addLink(link), of: handle) { result in
            res.send(result) { _ in
                var w = JSONWriter(capacity: 192)
                DocumentJSON.shareLink(link, token: token, to: &w)
                return .json(w.bytes, status: .created)
            }
        }
    }

    func revokeLink(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        let handle: DocumentHandle
        do throws(APIError) { handle = try ctx.requestedDocument() } catch { return res.send(error.response) }
        let id = req.parameters["link"] ?? ""
        service.access.changeAccess(.revokeLink(id: id), of: handle) { res.send($0) { _ in HTTPResponse(status: .noContent) } }
    }

    /// `DELETE /sessions/{id}`: the operator ends any session, as the session's own
    /// `DELETE /sessions/me` would.
    func endAnySession(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        guard ctx.caller.isOperator else {
            return res.send(APIError(.forbidden, "forbidden", "only the operator may end another session").response)
        }
        let id = req.parameters["id"] ?? ""
        guard sessions.session(id: id) != nil else { return res.send(APIError.notFound("session '\(id)'").response) }
        sessionActivity.endSession(id) { res.send($0.map { HTTPResponse(status: .noContent) }) }
    }
}
