import Testing
@testable import TandemServer

/// Passwords are stored as scrypt in the PHC string format, checked in constant time, and a
/// stored string is read back only with parameters a sign-in can afford.
@Suite struct PasswordHashTests {
    static func hex(_ s: String) -> [UInt8] {
        let digits = Array(s.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    @Test func scryptGivesRFC7914sTestVectors() {
        #expect(PasswordHash.derive("", salt: [], parameters: .init(logN: 4, r: 1, p: 1), count: 64) == Self.hex("""
            77 d6 57 62 38 65 7b 20 3b 19 ca 42 c1 8a 04 97 f1 6b 48 44 e3 07 4a e8 df df fa 3f ed e2 14 42
            fc d0 06 9d ed 09 48 f8 32 6a 75 3a 0f c8 1f 17 e8 d3 e0 fb 2e 0d 36 28 cf 35 e2 0c 38 d1 89 06
            """))
        #expect(PasswordHash.derive("password", salt: Array("NaCl".utf8), parameters: .init(logN: 10, r: 8, p: 16), count: 64) == Self.hex("""
            fd ba be 1c 9d 34 72 00 78 56 e7 19 0d 01 e9 fe 7c 6a d7 cb c8 23 78 30 e7 73 76 63 4b 37 31 62
            2e af 30 d9 2e 22 a3 88 6f f1 09 27 9d 98 30 da c7 27 af b9 4a 83 ee 6d 83 60 cb df a2 cc 06 40
            """))
    }

    @Test func aHashVerifiesItsPasswordOnlyAndSurvivesItsStoredForm() throws {
        let small = PasswordHash.Parameters(logN: 10, r: 8, p: 1)
        let made = try #require(PasswordHash.make("correct horse", parameters: small))
        #expect(made.encoded.hasPrefix("$scrypt$ln=10,r=8,p=1$"))
        let read = try #require(PasswordHash(encoded: made.encoded))
        #expect(read == made)
        #expect(read.verify("correct horse"))
        #expect(!read.verify("correct horse "))
        #expect(!read.verify(""))
        #expect(read.needsRehash)
        // Each hash has its own salt.
        #expect(try #require(PasswordHash.make("correct horse", parameters: small)).encoded != made.encoded)
    }

    @Test func theRecommendedParametersAreOWASPsAndNeedNoRehash() throws {
        #expect(PasswordHash.Parameters.recommended == .init(logN: 15, r: 8, p: 3))
        let made = try #require(PasswordHash.make("pw"))
        #expect(!made.needsRehash && made.verify("pw"))
    }

    @Test(arguments: [
        "", "scrypt", "$scrypt$ln=10,r=8,p=1$c2FsdHNhbHQ", "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA",
        // Costs a sign-in cannot afford, or none at all.
        "$scrypt$ln=24,r=8,p=1$c2FsdHNhbHQ$\(String(repeating: "A", count: 43))",
        "$scrypt$ln=15,r=64,p=1$c2FsdHNhbHQ$\(String(repeating: "A", count: 43))",
        "$scrypt$ln=15,r=8,p=0$c2FsdHNhbHQ$\(String(repeating: "A", count: 43))",
        "$scrypt$ln=9,r=8,p=1$c2FsdHNhbHQ$\(String(repeating: "A", count: 43))",
        // Repeated, missing or unknown fields; bad base64; a hash of the wrong length.
        "$scrypt$ln=15,ln=15,r=8$c2FsdHNhbHQ$\(String(repeating: "A", count: 43))",
        "$scrypt$ln=15,r=8$c2FsdHNhbHQ$\(String(repeating: "A", count: 43))",
        "$scrypt$ln=15,r=8,q=1$c2FsdHNhbHQ$\(String(repeating: "A", count: 43))",
        "$scrypt$ln=15,r=8,p=1$c2Fs*HNhbHQ$\(String(repeating: "A", count: 43))",
        "$scrypt$ln=15,r=8,p=1$c2FsdHNhbHQ$\(String(repeating: "A", count: 42))",
    ])
    func storedStringsThisServerDoesNotWriteAreNotRead(_ s: String) {
        #expect(PasswordHash(encoded: s) == nil)
    }
}
