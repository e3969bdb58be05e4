import COpenSSL

/// The one key an embedding application signs its tokens with (`--auth-jwt-key`,
/// `--auth-jwt-secret`), and with it the one algorithm a token may name: an Ed25519 public
/// key verifies only `EdDSA`, a P-256 public key only `ES256`, a secret only `HS256`. So no
/// token chooses how it is checked (no `none`, no HS256 keyed with a public key's bytes).
public struct JWTKey: Sendable {
    /// The JWS `alg` names this server knows.
    public enum Algorithm: String, Sendable {
        case eddsa = "EdDSA"
        case es256 = "ES256"
        case hs256 = "HS256"
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case notAPublicKey
        case shortSecret(Int)
        case longSecret(Int)
        public var description: String {
            switch self {
            case .notAPublicKey:
                "not a PEM public key (-----BEGIN PUBLIC KEY-----) of Ed25519 or P-256 (prime256v1)"
            case .shortSecret(let n):
                "an HS256 secret must be at least \(JWTKey.minimumSecretBytes) bytes, not \(n) (RFC 7518 §3.2: at least the hash's 256 bits)"
            case .longSecret(let n):
                "an HS256 secret must be at most \(JWTKey.maximumSecretBytes) bytes, not \(n)"
            }
        }
    }

    /// RFC 7518 §3.2: an HMAC key as long as the hash's output, at least.
    public static let minimumSecretBytes = 32
    /// Far past any real secret: a file given by mistake is refused rather than used.
    public static let maximumSecretBytes = 4096

    private enum Material: Sendable {
        case publicKey(PublicKey)
        case secret([UInt8])
    }

    public let algorithm: Algorithm
    private let material: Material

    /// An Ed25519 or P-256 public key from PEM text (SubjectPublicKeyInfo).
    public init(pem: String) throws(Failure) {
        var kind: Int32 = 0
        let bytes = Array(pem.utf8)
        guard bytes.count < Int(Int32.max),
              let key = bytes.withUnsafeBufferPointer({ buffer in
                  buffer.withMemoryRebound(to: CChar.self) { shim_jws_public_key($0.baseAddress, Int32($0.count), &kind) }
              })
        else { throw .notAPublicKey }
        material = .publicKey(PublicKey(key))
        algorithm = kind == 1 ? .eddsa : .es256
    }

    /// An HS256 secret: its bytes as given, at least 32 of them.
    public init(secret: [UInt8]) throws(Failure) {
        guard secret.count >= Self.minimumSecretBytes else { throw .shortSecret(secret.count) }
        guard secret.count <= Self.maximumSecretBytes else { throw .longSecret(secret.count) }
        material = .secret(secret)
        algorithm = .hs256
    }

    /// Whether `signature` is this key's over `signingInput` (the token's `header.payload`).
    /// An HMAC is compared in constant time.
    func verifies(_ signature: [UInt8], over signingInput: [UInt8]) -> Bool {
        switch material {
        case .publicKey(let key):
            let verify = algorithm == .eddsa ? shim_jws_verify_ed25519 : shim_jws_verify_es256
            return signingInput.withUnsafeBufferPointer { message in
                signature.withUnsafeBufferPointer { sig in
                    verify(key.pointer, message.baseAddress, message.count, sig.baseAddress, sig.count) == 1
                }
            }
        case .secret(let secret):
            guard let mac = Self.hmacSHA256(key: secret, message: signingInput) else { return false }
            return Secrets.constantTimeEqual(mac, signature)
        }
    }

    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: 32)
        let ok = key.withUnsafeBufferPointer { k in
            message.withUnsafeBufferPointer { m in
                out.withUnsafeMutableBufferPointer { o in
                    shim_hmac_sha256(k.baseAddress, Int32(k.count), m.baseAddress, m.count, o.baseAddress)
                }
            }
        }
        return ok == 1 ? out : nil
    }
}

/// An OpenSSL public key, freed with its last holder. `@unchecked Sendable`: it is never
/// changed after loading, and OpenSSL 3 lets any number of threads verify with one key.
private final class PublicKey: @unchecked Sendable {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EVP_PKEY_free(pointer) }
}
