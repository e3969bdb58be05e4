/// Verifies an embedding application's signed tokens (docs/API.md, "Tokens of an embedding
/// application"): JWS compact serialization only, the configured key's one algorithm, the
/// signature before any claim is read, then `sub`, `name` and `exp` (required), `nbf` and
/// `iat` (if present), and `iss` and `aud` when configured, with `leeway` for clocks. Written
/// by hand on OpenSSL rather than with jwt-kit (docs/API.md says why); every input is bounded.
public struct JWTVerifier: Sendable {
    public let key: JWTKey
    /// `--auth-jwt-issuer`: the `iss` every token must carry; nil checks none.
    public let issuer: String?
    /// `--auth-jwt-audience`: a value the token's `aud` must be or hold; nil checks none.
    public let audience: String?

    /// Longer tokens are refused before they are decoded.
    static let maxTokenBytes = 8192
    /// `--auth-jwt-leeway`: seconds of clock difference forgiven between the application and
    /// this server, on `exp`, `nbf` and `iat` alike. A token is taken until `exp + leeway`,
    /// and the session it starts ends then.
    public let leeway: Double

    public static let defaultLeeway: Double = 30
    public static let maxLeeway: Double = 300

    public init(key: JWTKey, issuer: String? = nil, audience: String? = nil, leeway: Double = defaultLeeway) {
        self.key = key
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway
    }

    /// Who `token` names, if it is valid at `now` (seconds since 1970).
    func verify(_ token: String, now: Double) throws(JWTRejection) -> JWTIdentity {
        let utf8 = Array(token.utf8)
        guard utf8.count <= Self.maxTokenBytes else { throw .malformed("longer than \(Self.maxTokenBytes) bytes") }
        let parts = utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("a token is three base64url parts joined by '.' (JWS compact serialization)") }
        // The header first, so that a token naming another algorithm (`none` with no
        // signature included) is refused as that.
        try checkHeader(try Self.object(try Self.decode(parts[0], "header"), "header"))
        let payloadBytes = try Self.decode(parts[1], "payload")
        let signature = try Self.decode(parts[2], "signature")
        // The signature covers the two parts exactly as sent.
        let signingInput = Array(utf8[..<(parts[1].endIndex)])
        guard key.verifies(signature, over: signingInput) else { throw .badSignature }
        return try identity(from: try Self.object(payloadBytes, "payload"), now: now)
    }

    /// A part's bytes: non-empty, unpadded base64url in its one canonical spelling.
    private static func decode(_ part: ArraySlice<UInt8>, _ what: String) throws(JWTRejection) -> [UInt8] {
        guard let bytes = SessionRegistry.base64urlDecode(String(decoding: part, as: UTF8.self)), !bytes.isEmpty else {
            throw .malformed("the \(what) is empty or not unpadded base64url")
        }
        return bytes
    }

    private static func object(_ bytes: [UInt8], _ what: String) throws(JWTRejection) -> JSONValue {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes, maxDepth: 8) } catch { throw .malformed("the \(what) is not JSON: \(error)") }
        guard case .object = value else { throw .malformed("the \(what) is not a JSON object") }
        return value
    }

    private func checkHeader(_ header: JSONValue) throws(JWTRejection) {
        guard let alg = header["alg"]?.stringValue else { throw .header("alg must be a string") }
        guard alg == key.algorithm.rawValue else { throw .algorithm(String(alg.prefix(32))) }
        // RFC 7515 §4.1.11: extensions named critical must be understood; this server knows none.
        guard header["crit"] == nil else { throw .header("crit names extensions this server does not support") }
        if let typ = header["typ"], typ.stringValue == nil { throw .header("typ must be a string") }
        // jku, jwk, x5u and x5c are never followed: the configured key alone verifies.
    }

    private func identity(from claims: JSONValue, now: Double) throws(JWTRejection) -> JWTIdentity {
        let subject = try Self.text(claims, "sub", max: 256)
        let name = try Self.text(claims, "name", max: 100)
        guard let exp = try Self.time(claims, "exp") else { throw .claim("exp", "is required") }
        guard now < exp + leeway else { throw .expired }
        if let nbf = try Self.time(claims, "nbf"), now + leeway < nbf { throw .notYetValid }
        if let iat = try Self.time(claims, "iat"), now + leeway < iat { throw .notYetValid }
        if let issuer, claims["iss"]?.stringValue != issuer { throw .issuer }
        if let audience {
            let named: [JSONValue] = claims["aud"].map { $0.arrayValue ?? [$0] } ?? []
            guard named.contains(where: { $0.stringValue == audience }) else { throw .audience }
        }
        return JWTIdentity(subject: subject, displayName: name, expires: exp + leeway, grants: try Self.grants(claims["tandem"]))
    }

    /// A required string claim: 1 to `max` characters, none of them a control character.
    private static func text(_ claims: JSONValue, _ name: String, max: Int) throws(JWTRejection) -> String {
        guard let value = claims[name] else { throw .claim(name, "is required") }
        guard let text = value.stringValue, (1...max).contains(text.count) else {
            throw .claim(name, "must be a string of 1 to \(max) characters")
        }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .claim(name, "must not hold control characters")
        }
        return text
    }

    /// An optional NumericDate claim (seconds since 1970, RFC 7519 §2).
    private static func time(_ claims: JSONValue, _ name: String) throws(JWTRejection) -> Double? {
        guard let value = claims[name] else { return nil }
        guard let seconds = value.numberValue, seconds.isFinite else { throw .claim(name, "must be a number of seconds since 1970") }
        return seconds
    }

    /// The `tandem` claim: `{"documents": {id or "*": "editor" | "viewer"}}`, nothing else.
    private static func grants(_ claim: JSONValue?) throws(JWTRejection) -> DocumentGrants {
        guard let claim else { return DocumentGrants() }
        guard let keys = claim.objectKeys else { throw .grants("must be an object") }
        guard keys.allSatisfy({ $0 == "documents" }) else { throw .grants("holds only documents") }
        guard let documents = claim["documents"] else { return DocumentGrants() }
        do { return try DocumentGrants(json: documents) } catch { throw .grants(error.message) }
    }
}
