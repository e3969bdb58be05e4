import TandemHTTP
import TandemStore

/// Signing in with an embedding application's token: `POST /sessions {"jwt"}` starts a
/// session of the user the token names (made on first sight, with no password, so that it
/// can sign in no other way), carrying the token's grants until its expiry; `POST
/// /sessions/me/renew {"jwt"}` gives it a fresh token's. A refused token is `401` and counts
/// against the address's `auth` limit, like any refused credential.
extension AccountController {
    static let jwtOff = APIError(.forbidden, "jwt_off",
                                 "this server takes no application tokens: it runs without --auth-jwt-key or --auth-jwt-secret")
    static let notATokenSession = APIError(.forbidden, "not_a_token_session",
                                           "only a session an application's token started is renewed with one")
    static let subjectMismatch = APIError(.forbidden, "token_subject_mismatch",
                                          "the token names another user than the session's: start a new session with it")

    /// `POST /sessions {"jwt"}`.
    func signIn(jwt token: String, request: HTTPRequest, _ res: HTTPResponder) {
        guard let verifier = configuration.authJWT else { return res.send(Self.jwtOff.response) }
        let client = clients.client(of: request)
        service.heavyWork.async(lane: Self.signInLane) { [self] in
            switch verified(token, verifier, client: client) {
            case .failure(let error): res.send(error.response)
            case .success(let identity): res.send(startSession(of: identity))
            }
        }
    }

    /// The identity a token names, or the answer to its refusal: past the address's `auth`
    /// limit it is not even checked, and a refusal takes one from that limit.
    private func verified(_ token: String, _ verifier: JWTVerifier, client: IPAddress?) -> Result<JWTIdentity, APIError> {
        if let client, let wait = rateLimiter.refusesCredentials(from: client) {
            return .failure(rateLimiter.refusal(.auth, retryAfter: wait))
        }
        do {
            return .success(try verifier.verify(token, now: service.now()))
        } catch {
            if let client { _ = rateLimiter.take(.auth, for: client) }
            metrics.increment("tandem_jwt_refused_total")
            return .failure(error.apiError)
        }
    }

    /// A new session of the token's user, its display name brought up to the token's.
    private func startSession(of identity: JWTIdentity) -> HTTPResponse {
        do {
            if var user = try store.user(named: identity.userName) {
                guard user.displayName != identity.displayName else { return startSession(of: user, updated: nil, token: identity) }
                user.displayName = identity.displayName
                return startSession(of: user, updated: user, token: identity)
            }
            let user = StoredUser(id: Accounts.newID(), name: identity.userName, displayName: identity.displayName,
                                  passwordHash: nil, created: service.now())
            do {
                try store.perform([.upsertUser(user)])
            } catch StoreError.conflict {
                // Made meanwhile, on another node or by another request.
                guard let made = try store.user(named: identity.userName) else { return APIError.storageFailing.response }
                return startSession(of: made, updated: nil, token: identity)
            }
            return startSession(of: user, updated: nil, token: identity)
        } catch {
            logger.error("could not sign in an application token's user: \(error)")
            return APIError.storageFailing.response
        }
    }

    /// `POST /sessions/me/renew {"jwt"}`: a fresh token of the same user replaces the
    /// session's grants and expiry; the session, its token and its undo context stay. Stored
    /// before it is answered, serially with the session's end (as a rename is).
    func renewSession(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        let s: Session, token: String, verifier: JWTVerifier
        do throws(APIError) {
            s = try ctx.requireSession(for: "POST /sessions/me/renew")
            guard let configured = configuration.authJWT else { throw Self.jwtOff }
            verifier = configured
            let body = try RequestBody.object(req, allowEmpty: false)
            try body.allowOnly(["jwt"])
            guard let given = try body.string("jwt") else { throw .invalidField("jwt", "is required") }
            guard s.expires != nil, JWTIdentity.isTokenUser(s.userName) else { throw Self.notATokenSession }
            token = given
        } catch {
            return res.send(error.response)
        }
        let client = clients.client(of: req)
        service.heavyWork.async(lane: Self.signInLane) { [self] in
            let identity: JWTIdentity
            switch verified(token, verifier, client: client) {
            case .failure(let error): return res.send(error.response)
            case .success(let verified): identity = verified
            }
            guard identity.userName == s.userName else { return res.send(Self.subjectMismatch.response) }
            renew(s.id, to: identity, res)
        }
    }

    private func renew(_ id: String, to identity: JWTIdentity, _ res: HTTPResponder) {
        pasteboards.serially { [self] done in
            let finish: @Sendable (HTTPResponse) -> Void = { response in
                res.send(response)
                done()
            }
            guard var renewed = sessions.session(id: id), !renewed.hasExpired(at: service.now()) else {
                return finish(APIError.unauthorized.response)
            }
            renewed.grants = identity.grants
            renewed.expires = identity.expires
            store.submit([.upsertSession(renewed.stored(name: renewed.name))], delivery: service.delivery()) { [self] result in
                if case .failure(let error) = result {
                    logger.error("could not store the renewal of session \(id): \(error)")
                    return finish(APIError.storageFailing.response)
                }
                guard let live = sessions.renew(id: id, grants: identity.grants, expires: identity.expires, now: service.now()) else {
                    // Ended while the renewal was stored: the row written back must not outlive it.
                    store.submit([.deleteSession(id)]) { _ in }
                    return finish(APIError.unauthorized.response)
                }
                service.sessionEnds.grantsChanged(of: live)
                finish(.json(SessionController.sessionJSON(live, token: nil)))
            }
        }
    }
}
