import Testing
@testable import TandemServer

@Suite struct SessionRegistryTests {
    @Test func tokenAuthenticatesOnlyItsSession() throws {
        let r = SessionRegistry()
        let (a, tokenA) = r.create(name: "Ada", now: 10)
        let (b, tokenB) = r.create(name: nil, now: 10)
        #expect(try r.authenticate(token: tokenA, now: 11).id == a.id)
        #expect(try r.authenticate(token: tokenB, now: 11).id == b.id)
        #expect(a.id != b.id)
        #expect(b.name.hasPrefix("Guest"))
        // The secret has at least 128 random bits and is not stored.
        let secret = tokenA.split(separator: ".")[1]
        #expect(SessionRegistry.base64urlDecode(secret)!.count >= 16)
        #expect(a.tokenHash != Array(secret.utf8))
    }

    @Test(arguments: ["", ".", "abc", "s_x.", ".abc", "s_unknown.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "s_x.!!!"])
    func rejectsBadTokens(_ token: String) {
        let r = SessionRegistry()
        _ = r.create(name: "A", now: 0)
        #expect(throws: SessionRegistry.AuthError.self) { try r.authenticate(token: token, now: 0) }
    }

    /// 32 bytes are 43 characters whose last holds 4 bits and 2 zero bits: flipping those two
    /// (or adding a character that carries no whole byte) spelled the same secret, so four
    /// tokens authenticated where one was handed out.
    @Test func onlyTheCanonicalSpellingOfATokenAuthenticates() throws {
        let r = SessionRegistry()
        let (a, token) = r.create(name: "A", now: 0)
        #expect(try r.authenticate(token: token, now: 0).id == a.id)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let last = alphabet.firstIndex(of: token.last!)!
        for padding in 1...3 {
            let respelled = String(token.dropLast()) + String(alphabet[last ^ padding])
            #expect(throws: SessionRegistry.AuthError.self) { try r.authenticate(token: respelled, now: 0) }
        }
        #expect(throws: SessionRegistry.AuthError.self) { try r.authenticate(token: token + "A", now: 0) }
        #expect(SessionRegistry.base64urlDecode("AB") == nil)   // 12 bits, 4 of them past the byte, not zero
        #expect(SessionRegistry.base64urlDecode("AA") == [0])
        #expect(SessionRegistry.base64urlDecode("A") == nil)    // 6 bits make no byte
    }

    @Test func swappedSecretIsRejected() throws {
        let r = SessionRegistry()
        let (a, _) = r.create(name: "A", now: 0)
        let (_, tokenB) = r.create(name: "B", now: 0)
        let forged = a.id + "." + tokenB.split(separator: ".")[1]
        #expect(throws: SessionRegistry.AuthError.unknownOrExpired) { try r.authenticate(token: forged, now: 0) }
    }

    @Test func idleSessionsExpireAndActiveOnesStay() throws {
        let r = SessionRegistry()
        let (a, tokenA) = r.create(name: "A", now: 0)
        let (b, _) = r.create(name: "B", now: 0)
        _ = try r.authenticate(token: tokenA, now: 50)
        let gone = r.expire(now: 70, timeout: 60)
        #expect(gone.map(\.id) == [b.id])
        #expect(r.session(id: a.id) != nil)
        #expect(r.expire(now: 200, timeout: 60).map(\.id) == [a.id])
        #expect(throws: SessionRegistry.AuthError.unknownOrExpired) { try r.authenticate(token: tokenA, now: 200) }
    }

    @Test func constantTimeEqual() {
        #expect(Secrets.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!Secrets.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!Secrets.constantTimeEqual([1, 2], [1, 2, 3]))
    }

    @Test func base64urlRoundTrips() {
        var g = SystemRandomNumberGenerator()
        for n in 0..<40 {
            let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &g) }
            #expect(SessionRegistry.base64urlDecode(Secrets.base64url(bytes)) == bytes)
        }
    }

    /// FIPS 180-2's test vectors: empty, one block, two blocks.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func sha256MatchesTheStandard(input: String, digest: String) {
        let hex = Secrets.sha256(Array(input.utf8)).map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        #expect(hex == digest)
    }

    @Test func activityIsHandedToTheStoreCoarsely() throws {
        let (restored, restoredToken) = SessionRegistry().create(name: "R", now: 0)
        let r = SessionRegistry(restoring: [restored])
        let (a, tokenA) = r.create(name: "A", now: 100)
        #expect(r.lastSeenToStore(interval: 10).isEmpty)
        _ = try r.authenticate(token: tokenA, now: 105)
        _ = try r.authenticate(token: restoredToken, now: 108)
        #expect(r.lastSeenToStore(interval: 10) == [restored.id: 108])
        _ = try r.authenticate(token: tokenA, now: 111)
        #expect(r.lastSeenToStore(interval: 10) == [a.id: 111])
        #expect(r.lastSeenToStore(interval: 10).isEmpty)
        // A failed write is retried; an ended session is never handed out again.
        _ = try r.authenticate(token: tokenA, now: 130)
        let due = r.lastSeenToStore(interval: 10)
        r.lastSeenNotStored(due)
        #expect(r.lastSeenToStore(interval: 0) == [a.id: 130])
        _ = try r.authenticate(token: tokenA, now: 200)
        r.remove(id: a.id)
        #expect(r.lastSeenToStore(interval: 0).isEmpty)
    }

    @Test func touchKeepsASessionFromExpiring() {
        let r = SessionRegistry()
        let (a, _) = r.create(name: "A", now: 0)
        r.touch([a.id, "s_gone"], now: 50)
        #expect(r.expire(now: 70, timeout: 60).isEmpty)
        #expect(r.session(id: a.id)?.lastSeen == 50)
    }
}
