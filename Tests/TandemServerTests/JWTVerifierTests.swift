import Testing
@testable import TandemServer

/// An embedding application's tokens: each key takes its own algorithm's valid tokens, and
/// every other token is refused with the reason that fits it.
@Suite struct JWTVerifierTests {
    static let now: Double = 1_800_000_000
    let ed = JWTTestSigner.KeyPair(.ed25519)
    let p256 = JWTTestSigner.KeyPair(.p256)
    let secret = Array("a secret of at least thirty-two bytes, shared".utf8)

    var edVerifier: JWTVerifier { JWTVerifier(key: try! JWTKey(pem: ed.publicPEM)) }

    static func claims(_ extra: String = "", exp: Double = now + 600) -> String {
        #"{"sub":"ada-1","name":"Ada Lovelace","exp":\#(Int(exp))\#(extra)}"#
    }

    func edToken(header: String = #"{"alg":"EdDSA","typ":"JWT"}"#, _ payload: String = claims()) -> String {
        JWTTestSigner.token(header: header, payload: payload, sign: ed.sign)
    }

    func hsToken(key: [UInt8], header: String = #"{"alg":"HS256"}"#, _ payload: String = claims()) -> String {
        JWTTestSigner.token(header: header, payload: payload) { JWTKey.hmacSHA256(key: key, message: $0)! }
    }

    /// The case of a rejection, without its message.
    static func reason(_ verifier: JWTVerifier, _ token: String) -> String {
        do {
            _ = try verifier.verify(token, now: now)
            return "accepted"
        } catch {
            switch error {
            case .malformed: return "malformed"
            case .algorithm: return "algorithm"
            case .header: return "header"
            case .badSignature: return "signature"
            case .expired: return "expired"
            case .notYetValid: return "not yet valid"
            case .issuer: return "issuer"
            case .audience: return "audience"
            case .claim(let name, _): return "claim \(name)"
            case .grants: return "grants"
            }
        }
    }

    @Test func eachKeyAcceptsAValidTokenOfItsOwnAlgorithm() throws {
        let ed = try edVerifier.verify(edToken(), now: Self.now)
        #expect(ed == JWTIdentity(subject: "ada-1", displayName: "Ada Lovelace", expires: Self.now + 600 + 30, grants: DocumentGrants()))
        #expect(ed.userName == "jwt:ada-1")

        let es = JWTVerifier(key: try JWTKey(pem: p256.publicPEM))
        #expect(es.key.algorithm == .es256)
        let esToken = JWTTestSigner.token(header: #"{"alg":"ES256"}"#, payload: Self.claims(), sign: p256.sign)
        #expect(try es.verify(esToken, now: Self.now).subject == "ada-1")

        let hs = JWTVerifier(key: try JWTKey(secret: secret))
        #expect(hs.key.algorithm == .hs256)
        #expect(try hs.verify(hsToken(key: secret), now: Self.now).displayName == "Ada Lovelace")
    }

    @Test func theGrantsClaimGivesRolesByDocumentAndToEveryDocument() throws {
        let token = edToken(Self.claims(#","tandem":{"documents":{"plan":"editor","*":"viewer","notes":"viewer"}}"#))
        let grants = try edVerifier.verify(token, now: Self.now).grants
        #expect(grants.role(in: "plan") == .editor)
        #expect(grants.role(in: "notes") == .viewer)
        #expect(grants.role(in: "anything") == .viewer)
        #expect(DocumentGrants(jsonText: grants.jsonText) == grants)
    }

    @Test func issuerAndAudienceAreCheckedWhenConfigured() throws {
        let verifier = JWTVerifier(key: try JWTKey(pem: ed.publicPEM), issuer: "https://app.example", audience: "tandem")
        #expect(Self.reason(verifier, edToken(Self.claims(#","iss":"https://app.example","aud":"tandem""#))) == "accepted")
        #expect(Self.reason(verifier, edToken(Self.claims(#","iss":"https://app.example","aud":["other","tandem"]"#))) == "accepted")
        #expect(Self.reason(verifier, edToken(Self.claims(#","iss":"https://evil.example","aud":"tandem""#))) == "issuer")
        #expect(Self.reason(verifier, edToken(Self.claims(#","aud":"tandem""#))) == "issuer")
        #expect(Self.reason(verifier, edToken(Self.claims(#","iss":"https://app.example","aud":"other""#))) == "audience")
        #expect(Self.reason(verifier, edToken(Self.claims(#","iss":"https://app.example","aud":["other"]"#))) == "audience")
        #expect(Self.reason(verifier, edToken(Self.claims(#","iss":"https://app.example""#))) == "audience")
    }

    @Test func everyOtherTokenIsRefusedWithTheReasonThatFitsIt() throws {
        let valid = edToken()
        let parts = valid.split(separator: ".").map(String.init)
        var flipped = Array(parts[2].utf8)
        flipped[10] = flipped[10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let other = JWTTestSigner.KeyPair(.ed25519)
        let cases: [(String, String, String)] = [
            ("alg none, unsigned", JWTTestSigner.encode(#"{"alg":"none"}"#) + "." + JWTTestSigner.encode(Self.claims()) + ".", "algorithm"),
            ("alg none, with a signature", JWTTestSigner.token(header: #"{"alg":"none"}"#, payload: Self.claims(), sign: ed.sign), "algorithm"),
            ("HS256 keyed with the public key's PEM", hsToken(key: Array(ed.publicPEM.utf8)), "algorithm"),
            ("ES256 against an Ed25519 key", JWTTestSigner.token(header: #"{"alg":"ES256"}"#, payload: Self.claims(), sign: p256.sign), "algorithm"),
            ("alg in another case", edToken(header: #"{"alg":"eddsa"}"#), "algorithm"),
            ("no alg", edToken(header: #"{"typ":"JWT"}"#), "header"),
            ("crit", edToken(header: #"{"alg":"EdDSA","crit":["exp"]}"#), "header"),
            ("a signature changed", parts[0] + "." + parts[1] + "." + String(decoding: flipped, as: UTF8.self), "signature"),
            ("another key's signature", JWTTestSigner.token(header: #"{"alg":"EdDSA"}"#, payload: Self.claims(), sign: other.sign), "signature"),
            ("a payload changed", parts[0] + "." + JWTTestSigner.encode(Self.claims(exp: Self.now + 6000)) + "." + parts[2], "signature"),
            ("a signature cut short", String(valid.dropLast(6)), "signature"),
            ("a signature cut mid-character", String(valid.dropLast(1)), "malformed"),
            ("two parts", parts[0] + "." + parts[1], "malformed"),
            ("an extra part", valid + ".e30", "malformed"),
            ("an empty signature", parts[0] + "." + parts[1] + ".", "malformed"),
            ("padding", valid + "==", "malformed"),
            ("a character outside base64url", parts[0] + "." + parts[1].replacingOccurrences(of: "e", with: "+") + "." + parts[2], "malformed"),
            ("a header that is no JSON", JWTTestSigner.encode("{alg:EdDSA}") + "." + parts[1] + "." + parts[2], "malformed"),
            ("a payload that is no object", edToken("[1]"), "malformed"),
            ("a payload that is no JSON", edToken(#"{"sub":"ada","#), "malformed"),
            ("over 8 KiB", edToken(Self.claims(#","pad":"\#(String(repeating: "x", count: 7000))""#)), "malformed"),
            ("expired", edToken(Self.claims(exp: Self.now - 31)), "expired"),
            ("nbf in the future", edToken(Self.claims(#","nbf":\#(Int(Self.now) + 60)"#)), "not yet valid"),
            ("iat in the future", edToken(Self.claims(#","iat":\#(Int(Self.now) + 60)"#)), "not yet valid"),
            ("no sub", edToken(#"{"name":"Ada","exp":\#(Int(Self.now) + 60)}"#), "claim sub"),
            ("a number for sub", edToken(#"{"sub":7,"name":"Ada","exp":\#(Int(Self.now) + 60)}"#), "claim sub"),
            ("an empty sub", edToken(#"{"sub":"","name":"Ada","exp":\#(Int(Self.now) + 60)}"#), "claim sub"),
            ("a sub of 257 characters", edToken(#"{"sub":"\#(String(repeating: "s", count: 257))","name":"Ada","exp":\#(Int(Self.now) + 60)}"#), "claim sub"),
            ("no name", edToken(#"{"sub":"ada","exp":\#(Int(Self.now) + 60)}"#), "claim name"),
            ("a name of 101 characters", edToken(#"{"sub":"ada","name":"\#(String(repeating: "n", count: 101))","exp":\#(Int(Self.now) + 60)}"#), "claim name"),
            ("a control character in the name", edToken(#"{"sub":"ada","name":"A\u0007da","exp":\#(Int(Self.now) + 60)}"#), "claim name"),
            ("no exp", edToken(#"{"sub":"ada","name":"Ada"}"#), "claim exp"),
            ("a string for exp", edToken(#"{"sub":"ada","name":"Ada","exp":"tomorrow"}"#), "claim exp"),
            ("a string for nbf", edToken(Self.claims(#","nbf":"now""#)), "claim nbf"),
            ("owner granted", edToken(Self.claims(#","tandem":{"documents":{"plan":"owner"}}"#)), "grants"),
            ("an unknown role", edToken(Self.claims(#","tandem":{"documents":{"plan":"admin"}}"#)), "grants"),
            ("a grant that is no string", edToken(Self.claims(#","tandem":{"documents":{"plan":2}}"#)), "grants"),
            ("no document id", edToken(Self.claims(#","tandem":{"documents":{"a/b":"viewer"}}"#)), "grants"),
            ("documents no object", edToken(Self.claims(#","tandem":{"documents":["plan"]}"#)), "grants"),
            ("tandem no object", edToken(Self.claims(#","tandem":"editor""#)), "grants"),
            ("tandem with an unknown member", edToken(Self.claims(#","tandem":{"document":{"plan":"viewer"}}"#)), "grants"),
        ]
        for (what, token, expected) in cases {
            #expect(Self.reason(edVerifier, token) == expected, "\(what)")
        }
    }

    @Test func theLeewayForgivesASmallClockDifferenceOnly() {
        #expect(Self.reason(edVerifier, edToken(Self.claims(exp: Self.now - 29))) == "accepted")
        #expect(Self.reason(edVerifier, edToken(Self.claims(#","nbf":\#(Int(Self.now) + 29)"#))) == "accepted")
        let strict = JWTVerifier(key: edVerifier.key, leeway: 0)
        #expect(Self.reason(strict, edToken(Self.claims(exp: Self.now))) == "expired")
        #expect(Self.reason(strict, edToken(Self.claims(exp: Self.now + 1))) == "accepted")
    }

    @Test func anHMACTokenIsRefusedUnderAnotherSecretAndAPublicKeyTokenUnderASecret() throws {
        let hs = JWTVerifier(key: try JWTKey(secret: secret))
        #expect(Self.reason(hs, hsToken(key: Array("another secret of thirty-two bytes or more".utf8))) == "signature")
        #expect(Self.reason(hs, edToken()) == "algorithm")
    }

    @Test func aKeyIsAnEd25519OrP256PublicKeyOrASecretOfThirtyTwoBytesOrMore() {
        #expect(throws: JWTKey.Failure.notAPublicKey) { try JWTKey(pem: "not a key") }
        #expect(throws: JWTKey.Failure.notAPublicKey) { try JWTKey(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n") }
        #expect(throws: JWTKey.Failure.shortSecret(31)) { try JWTKey(secret: Array(repeating: 7, count: 31)) }
        #expect(throws: Never.self) { try JWTKey(secret: Array(repeating: 7, count: 32)) }
    }

    @Test func grantsAreOneMoreSourceOfRoleAndTheHighestWins() {
        var session = Session(id: "s_1", name: "Ada", color: "#000", created: 0, lastSeen: 0, tokenHash: [], userID: "u_1")
        session.grants.documents = ["plan": .viewer]
        session.grants.everyDocument = .editor
        var rules = AccessRules(access: .private, owner: "user:u_2")
        rules.members["user:u_1"] = .viewer
        let caller = Caller(session: session)
        #expect(rules.role(of: caller, in: "plan") == .editor)
        session.grants.everyDocument = nil
        #expect(rules.role(of: Caller(session: session), in: "plan") == .viewer)
        rules.members = [:]
        #expect(rules.role(of: Caller(session: session), in: "other") == nil)
    }

    @Test func aSessionPastItsTokensExpiryAuthenticatesNoMoreAndIsSwept() throws {
        let registry = SessionRegistry()
        let (session, token) = registry.create(name: "Ada", userID: "u_1", userName: "jwt:ada", now: 100, expires: 200, grants: DocumentGrants())
        #expect(try registry.authenticate(token: token, now: 199).id == session.id)
        #expect(throws: SessionRegistry.AuthError.unknownOrExpired) { try registry.authenticate(token: token, now: 200) }
        #expect(registry.renew(id: session.id, grants: DocumentGrants(), expires: 300, now: 250) == nil)
        #expect(registry.expire(now: 200, timeout: 3600).map(\.id) == [session.id])
    }

    @Test func aRenewalMovesTheExpiryAndReplacesTheGrants() throws {
        let registry = SessionRegistry()
        var grants = DocumentGrants()
        grants.documents["plan"] = .editor
        let (session, token) = registry.create(name: "Ada", userID: "u_1", userName: "jwt:ada", now: 100, expires: 200, grants: grants)
        let renewed = try #require(registry.renew(id: session.id, grants: DocumentGrants(), expires: 400, now: 150))
        #expect(renewed.grants.isEmpty && renewed.expires == 400)
        #expect(try registry.authenticate(token: token, now: 350).grants.isEmpty)
        #expect(registry.expire(now: 350, timeout: 3600).isEmpty)
    }

    @Test func storedGrantsAndExpiryComeBackWithTheSession() {
        var session = Session(id: "s_1", name: "Ada", color: "#000", created: 1, lastSeen: 2, tokenHash: [1], userID: "u_1")
        session.expires = 99
        session.grants.documents = ["plan": .editor]
        session.grants.everyDocument = .viewer
        let stored = session.stored(name: "Ada")
        #expect(stored.expires == 99)
        #expect(Session(stored, userName: nil) == session)
    }
}
