import COpenSSL
import TandemStore

/// How `PostgresIdempotency` keeps answers in the database every node reads: under a digest
/// of the scoped `Idempotency-Key`, sealed (AES-256-GCM) with a key derived from it. Some
/// answers carry a secret shown once (a share link's token, a new document's owner link),
/// which is stored elsewhere only hashed; whoever reads the table (a backup, an operator)
/// without the client's `Idempotency-Key` learns neither the answers nor the keys.
enum SealedAnswers {
    /// The row's key: the scoped key's digest, hex.
    static func column(_ scoped: String) -> String {
        let digest = Secrets.sha256(Array("tandem idempotency key\u{0}".utf8) + Array(scoped.utf8))
        return digest.map { String(format: "%02x", $0) }.joined()
    }

    /// The answer with its headers and body sealed (status and time stay readable).
    static func seal(_ answer: StoredAnswer, key scoped: String) -> StoredAnswer? {
        let key = sealingKey(scoped)
        guard let headers = seal(answer.headers, key: key), let body = seal(answer.body, key: key) else { return nil }
        return StoredAnswer(status: answer.status, headers: headers, body: body, answered: answer.answered)
    }

    /// The answer as it was given; nil if it does not open with this key (altered in the table).
    static func open(_ answer: StoredAnswer, key scoped: String) -> StoredAnswer? {
        let key = sealingKey(scoped)
        guard let headers = open(answer.headers, key: key), let body = open(answer.body, key: key) else { return nil }
        return StoredAnswer(status: answer.status, headers: headers, body: body, answered: answer.answered)
    }

    private static func sealingKey(_ scoped: String) -> [UInt8] {
        Secrets.sha256(Array("tandem idempotency answer\u{0}".utf8) + Array(scoped.utf8))
    }

    /// A fresh nonce, the ciphertext and its tag.
    private static func seal(_ plain: [UInt8], key: [UInt8]) -> [UInt8]? {
        let nonce = Secrets.randomBytes(12)
        var out = [UInt8](repeating: 0, count: plain.count + 16)
        let ok = out.withUnsafeMutableBufferPointer { o in
            shim_aes256gcm_seal(key, nonce, plain, Int32(plain.count), o.baseAddress)
        }
        return ok == 1 ? nonce + out : nil
    }

    private static func open(_ sealed: [UInt8], key: [UInt8]) -> [UInt8]? {
        guard sealed.count >= 28 else { return nil }
        let nonce = Array(sealed[..<12])
        let body = Array(sealed[12...])
        var out = [UInt8](repeating: 0, count: body.count - 16)
        let ok = out.withUnsafeMutableBufferPointer { o in
            shim_aes256gcm_open(key, nonce, body, Int32(body.count), o.baseAddress)
        }
        return ok == 1 ? out : nil
    }
}
