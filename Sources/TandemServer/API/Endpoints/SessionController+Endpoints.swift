import TandemHTTP
import TandemStore

/// The endpoints of `SessionController`: paths, OpenAPI descriptions and handlers.
extension SessionController {
    var endpoints: [Endpoint] {
        [
            Endpoint(
                method: .post, path: "/sessions", operationID: "createSession",
                summary: "Start a session (a guest's, or with user and password a local account's, or with jwt the user an embedding application's signed token names, or with Tandem-Login: cookie one of the browser's login); the token is shown only in this answer", tag: "Sessions",
                parameters: [Endpoint.header("Tandem-Login", "\"cookie\", from Tandem's page: a sign-in also sets the HttpOnly login cookie, and without user and password the cookie's login starts the session")],
                requestBody: Endpoint.jsonBody(Schemas.object([("name", ["type": "string", "maxLength": 100]), ("user", Schemas.string),
                                                               ("password", Schemas.string), ("jwt", Schemas.jwt)], required: []), required: false),
                responses: [
                    Endpoint.json(201, "The new session and its bearer token", Schemas.ref("SessionCreated")),
                    Endpoint.error(400, "Malformed JSON or field"),
                    Endpoint.error(401, "No account with that user and password (invalid_credentials), the browser's login has ended (signed_out), or the application's token is refused (invalid_token, token_expired)"),
                    Endpoint.error(403, "A jwt, but the server takes no application tokens (jwt_off)"),
                    Endpoint.error(415, "Body is not JSON"),
                    Endpoint.error(429, "Too many failed sign-ins to the account, or too many refused credentials from the address (rate_limited, Retry-After)"),
                    Endpoint.error(503, "The store cannot save the session"),
                ],
                handler: { [self] req, ctx, res in createSession(req, ctx, res) }
            ),
            Endpoint(
                method: .post, path: "/users", operationID: "signUp",
                summary: "Make a local account and sign it in (only with --signup open); the token is shown only in this answer", tag: "Sessions",
                requestBody: Endpoint.jsonBody(Schemas.object([
                    ("name", ["type": "string", "minLength": 1, "maxLength": 64]),
                    ("password", ["type": "string", "minLength": 8, "maxLength": 1024]),
                    ("displayName", ["type": "string", "minLength": 1, "maxLength": 100]),
                ], required: ["name", "password"])),
                responses: [
                    Endpoint.json(201, "The new user's first session and its bearer token", Schemas.ref("SessionCreated")),
                    Endpoint.error(400, "Malformed JSON, or a missing or bad name, password or displayName"),
                    Endpoint.error(403, "The server does not let people sign up (signup_off)"),
                    Endpoint.error(409, "A user has that name (name_taken)"),
                    Endpoint.error(415, "Body is not JSON"),
                    Endpoint.error(503, "The store cannot save the user"),
                ],
                handler: { [self] req, ctx, res in accounts.signUp(req, ctx, res) }
            ),
            Endpoint(
                method: .get, path: "/accounts", operationID: "accountOptions",
                summary: "How people may use this server: what guests may do, whether people sign up", tag: "Sessions",
                responses: [Endpoint.json(200, "The options", Schemas.object([
                    ("guests", ["type": "string", "enum": ["edit", "read", "off"]]),
                    ("signup", ["type": "string", "enum": ["off", "open"]]),
                    ("tokens", ["type": "boolean"]),
                ], required: ["guests", "signup", "tokens"]))],
                handler: { [self] _, _, res in
                    var w = JSONWriter(capacity: 48)
                    w.beginObject()
                    w.key("guests"); w.string(configuration.guests.rawValue)
                    w.key("signup"); w.string(configuration.signup.rawValue)
                    w.key("tokens"); w.bool(configuration.authJWT != nil)
                    w.endObject()
                    res.send(.json(w.bytes))
                }
            ),
            Endpoint(
                method: .get, path: "/users/me", operationID: "getCurrentUser",
                summary: "The user the calling session belongs to (a guest's session: guest true, id null)", tag: "Sessions",
                responses: [
                    Endpoint.json(200, "The user", Schemas.ref("CurrentUser")),
                    Endpoint.error(401, "No session (session_required), or a wrong or expired token"),
                ],
                handler: { [self] req, ctx, res in
                    let session: Session
                    do throws(APIError) { session = try ctx.requireSession(for: "GET /users/me") } catch { return res.send(error.response) }
                    // A read of the store: off the loop.
                    service.heavyWork.async(lane: AccountController.signInLane) { [self] in res.respond { () throws(APIError) in try accounts.currentUser(session) } }
                }
            ),
            Endpoint(
                method: .get, path: "/sessions/me", operationID: "getSession",
                summary: "The calling session", tag: "Sessions",
                responses: [
                    Endpoint.json(200, "The session", Schemas.ref("Session")),
                    Endpoint.error(401, "No token, or a wrong or expired one"),
                ],
                handler: { _, ctx, res in
                    res.respond { () throws(APIError) in
                        let s = try ctx.requireSession(for: "GET /sessions/me")
                        return .json(Self.sessionJSON(s, token: nil))
                    }
                }
            ),
            Endpoint(
                method: .patch, path: "/sessions/me", operationID: "renameSession",
                summary: "Rename the calling session; its token, undo history and pasteboards stay", tag: "Sessions",
                requestBody: Endpoint.jsonBody(Schemas.object([("name", ["type": "string", "minLength": 1, "maxLength": 100])], required: ["name"])),
                responses: [
                    Endpoint.json(200, "The renamed session", Schemas.ref("Session")),
                    Endpoint.error(400, "Malformed JSON, or a missing or bad name"),
                    Endpoint.error(401, "No token, or a wrong or expired one"),
                    Endpoint.error(415, "Body is not JSON"),
                    Endpoint.error(503, "The store cannot save the name: the old one stays"),
                ],
                handler: { [self] req, ctx, res in renameSession(req, ctx, res) }
            ),
            Endpoint(
                method: .post, path: "/sessions/me/renew", operationID: "renewSession",
                summary: "Give a session an embedding application's token started a fresh token of the same user: its grants and expiry are replaced; the session, its bearer token and its undo history stay", tag: "Sessions",
                requestBody: Endpoint.jsonBody(Schemas.object([("jwt", Schemas.jwt)], required: ["jwt"])),
                responses: [
                    Endpoint.json(200, "The renewed session, with its new expires", Schemas.ref("Session")),
                    Endpoint.error(400, "Malformed JSON, or a missing jwt"),
                    Endpoint.error(401, "No session token, a wrong or expired one (unauthorized), or the application's token is refused (invalid_token, token_expired)"),
                    Endpoint.error(403, "The token names another user (token_subject_mismatch), the session was not started with a token (not_a_token_session), or the server takes none (jwt_off)"),
                    Endpoint.error(415, "Body is not JSON"),
                    Endpoint.error(429, "Too many refused credentials from the address (rate_limited, Retry-After)"),
                    Endpoint.error(503, "The store cannot save the renewal: the old grants and expiry stay"),
                ],
                handler: { [self] req, ctx, res in accounts.renewSession(req, ctx, res) }
            ),
            Endpoint(
                method: .delete, path: "/sessions/me", operationID: "endSession",
                summary: "End the session: its undo contexts are cleared and its non-persistent pasteboards removed", tag: "Sessions",
                responses: [
                    Endpoint.Response(status: 204, description: "Ended"),
                    Endpoint.error(401, "No token, or a wrong or expired one"),
                    Endpoint.error(503, "The store cannot save the end: the session goes on"),
                ],
                handler: { [self] req, ctx, res in
                    let s: Session
                    do throws(APIError) { s = try ctx.requireSession(for: "DELETE /sessions/me") } catch {
                        return res.send(error.response)
                    }
                    sessionActivity.endSession(s.id) { [self] result in
                        guard case .success = result, AccountController.usesLoginCookie(req) else {
                            return res.send(result.map { HTTPResponse(status: .noContent) })
                        }
                        // Signing out in a browser: its login ends too, and the cookie goes.
                        accounts.endLogin(req) { [self] in res.send(HTTPResponse(status: .noContent, headers: ["Set-Cookie": accounts.loginCookie(nil)])) }
                    }
                }
            ),
        ]
    }
}
