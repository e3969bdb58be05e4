import TandemHTTP

/// `--auth-header NAME`: a reverse proxy that signs people in (oauth2-proxy, Authelia) names
/// the user in a header. It is believed only from a `--trusted-proxy` peer, the direct one:
/// anyone else can write a header. Such a request's `POST /sessions` starts a session of that
/// user (made on first sight, with no password); on every other request a session must be
/// that user's, so that a token left in a browser by someone else stops working as soon as
/// the proxy names another person.
struct ProxyIdentity: Sendable {
    let header: String
    let clients: ClientAddressResolver

    /// The user the trusted proxy names (a normalized sign-in name); nil when there is no such
    /// proxy, header or peer. A header from a trusted proxy that is no valid name is refused.
    func user(of request: HTTPRequest) throws(APIError) -> String? {
        guard let value = request.headers[header], let peer = IPAddress(peer: request.remoteAddress),
              clients.isTrusted(peer) else { return nil }
        guard let name = UserName.normalized(value) else {
            throw .badRequest("the \(header) header the proxy sent is no user name: \(UserName.rule)", code: "invalid_proxy_user")
        }
        return name
    }

    static let mismatch = APIError(.unauthorized, "proxy_user_mismatch",
                                   "the session is not the signed-in person's: start a new one with POST /sessions")
}
