import TandemHTTP

/// Why a token was refused. Every reason is `401`: `token_expired` when only time is wrong
/// (the application can mint a fresh one), `invalid_token` for everything else, with the
/// reason in the message so that whoever embeds Tandem can fix their side.
enum JWTRejection: Error, Equatable {
    /// Not three base64url parts of a JSON header and payload, or longer than allowed.
    case malformed(String)
    /// The header's `alg` is not the configured key's (`none` included).
    case algorithm(String)
    /// The header asks for something this server does not do (`crit`).
    case header(String)
    case badSignature
    case expired
    case notYetValid
    case issuer
    case audience
    /// A claim is missing or not what it must be (`sub`, `name`, `exp`, `nbf`, `iat`).
    case claim(String, String)
    /// The `tandem` claim is not what docs/API.md describes.
    case grants(String)

    var message: String {
        switch self {
        case .malformed(let why): "the token is malformed: \(why)"
        case .algorithm(let alg): "the token's alg must be the configured key's, not \(alg)"
        case .header(let why): "the token's header: \(why)"
        case .badSignature: "the token's signature does not verify"
        case .expired: "the token has expired"
        case .notYetValid: "the token is not valid yet (nbf or iat in the future)"
        case .issuer: "the token's iss is not the configured issuer"
        case .audience: "the token's aud does not name the configured audience"
        case .claim(let name, let why): "the token's \(name) claim \(why)"
        case .grants(let why): "the token's tandem claim: \(why)"
        }
    }

    var apiError: APIError {
        APIError(.unauthorized, self == .expired ? "token_expired" : "invalid_token", message)
    }
}
