import TandemHTTP
import TandemStore

/// Staying signed in in a browser. Each tab keeps its own session (its undo context) in
/// sessionStorage, as a guest's; what survives a reload, a new tab and a restart of the
/// browser's tab is a *login*: a session of the user that is never used for anything but
/// starting the tabs' sessions, whose token lives only in an HttpOnly cookie that page
/// scripts cannot read, sent only to `/sessions` (`Path`), never from another site
/// (`SameSite=Strict`), and read only with the `Tandem-Login: cookie` header, which a form on
/// another site cannot send and a script on another origin cannot add without a CORS
/// preflight that Tandem never grants. A login ends with `DELETE /sessions/me` sent with that
/// header, with the user's password change or removal, and after the session timeout idle.
extension AccountController {
    static let loginCookie = "tandem_login"
    static let loginHeader = "Tandem-Login"

    /// Whether the request comes from Tandem's own page and may use the login cookie.
    static func usesLoginCookie(_ req: HTTPRequest) -> Bool {
        req.headers[loginHeader] == "cookie"
    }

    /// The login token the cookie holds, when the request may use it.
    static func loginToken(_ req: HTTPRequest) -> String? {
        guard usesLoginCookie(req) else { return nil }
        for header in req.headers.values("Cookie") {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == loginCookie {
                    return String(parts[1]).trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    func loginCookie(_ token: String?) -> String {
        let secure = configuration.tlsCertificatePath != nil ? "; Secure" : ""
        let value = token ?? ""
        let age = token == nil ? 0 : Int(configuration.sessionTimeout)
        return "\(Self.loginCookie)=\(value); Path=/sessions; Max-Age=\(age); HttpOnly; SameSite=Strict\(secure)"
    }

    /// After a sign-in asked for it: a login of `user`, stored, whose token goes in the cookie
    /// of the answer. Nil if the store refused it (the sign-in still stands, for this tab).
    func startLogin(of user: StoredUser) -> String? {
        let (login, token) = sessions.create(name: user.displayName, userID: user.id, userName: user.name, now: service.now())
        do {
            try store.perform([.upsertSession(login.stored(name: login.name))])
        } catch {
            sessions.remove(id: login.id)
            logger.error("could not store a login of \(user.id): \(error)")
            return nil
        }
        return token
    }

    /// `POST /sessions` with the login cookie: a new session of its user, for a new tab.
    func signIn(login token: String, _ res: HTTPResponder) {
        let login: Session
        do { login = try sessions.authenticate(token: token, now: service.now()) } catch {
            return res.send(signedOut)
        }
        guard let userID = login.userID else { return res.send(signedOut) }
        service.heavyWork.async(lane: Self.signInLane) { [self] in
            let user: StoredUser?
            do { user = try store.user(id: userID) } catch {
                return res.send(APIError.storageFailing.response)
            }
            guard let user else { return res.send(signedOut) }
            res.send(startSession(of: user, updated: nil))
        }
    }

    /// The cookie's login is gone (ended, expired, its user removed): `401 signed_out`, and
    /// the browser forgets the cookie.
    private var signedOut: HTTPResponse {
        var r = APIError(.unauthorized, "signed_out", "the browser's sign-in has ended: sign in again").response
        r.headers.add("Set-Cookie", loginCookie(nil))
        return r
    }

    /// `DELETE /sessions/me` with the login header: the cookie's login ends with the session,
    /// and the browser forgets the cookie.
    func endLogin(_ req: HTTPRequest, then: @escaping @Sendable () -> Void) {
        guard let token = Self.loginToken(req), let login = try? sessions.authenticate(token: token, now: service.now()) else { return then() }
        sessionActivity.endSession(login.id) { _ in then() }
    }
}
