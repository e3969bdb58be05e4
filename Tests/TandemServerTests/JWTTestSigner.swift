import COpenSSL
@testable import TandemServer

/// Signs tokens the way an embedding application would, with keys made fresh for each test
/// run by OpenSSL: none of them is ever written down.
struct JWTTestSigner {
    enum Kind { case ed25519, p256 }

    /// A new key pair; `publicPEM` is what the server is configured with.
    final class KeyPair {
        let pointer: OpaquePointer
        let kind: Kind
        init(_ kind: Kind) {
            self.kind = kind
            let ctx = EVP_PKEY_CTX_new_id(kind == .ed25519 ? EVP_PKEY_ED25519 : EVP_PKEY_EC, nil)
            defer { EVP_PKEY_CTX_free(ctx) }
            var key: OpaquePointer?
            precondition(EVP_PKEY_keygen_init(ctx) == 1)
            if kind == .p256 { precondition(EVP_PKEY_CTX_set_ec_paramgen_curve_nid(ctx, NID_X9_62_prime256v1) == 1) }
            precondition(EVP_PKEY_keygen(ctx, &key) == 1)
            pointer = key!
        }
        deinit { EVP_PKEY_free(pointer) }

        var publicPEM: String {
            let bio = BIO_new(BIO_s_mem())
            defer { BIO_free(bio) }
            precondition(PEM_write_bio_PUBKEY(bio, pointer) == 1)
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = BIO_read(bio, &buffer, Int32(buffer.count))
            return String(decoding: buffer[..<Int(n)], as: UTF8.self)
        }

        /// A JWS signature as the token carries it (ES256: r and s, 32 bytes each).
        func sign(_ message: [UInt8]) -> [UInt8] {
            let ctx = EVP_MD_CTX_new()
            defer { EVP_MD_CTX_free(ctx) }
            precondition(EVP_DigestSignInit(ctx, nil, kind == .ed25519 ? nil : EVP_sha256(), nil, pointer) == 1)
            var length = 0
            precondition(EVP_DigestSign(ctx, nil, &length, message, message.count) == 1)
            var signature = [UInt8](repeating: 0, count: length)
            precondition(EVP_DigestSign(ctx, &signature, &length, message, message.count) == 1)
            signature.removeLast(signature.count - length)
            guard kind == .p256 else { return signature }
            return signature.withUnsafeBufferPointer { der in
                var p: UnsafePointer<UInt8>? = der.baseAddress
                let ecdsa = d2i_ECDSA_SIG(nil, &p, der.count)
                defer { ECDSA_SIG_free(ecdsa) }
                var raw = [UInt8](repeating: 0, count: 64)
                raw.withUnsafeMutableBufferPointer { out in
                    _ = BN_bn2binpad(ECDSA_SIG_get0_r(ecdsa), out.baseAddress, 32)
                    _ = BN_bn2binpad(ECDSA_SIG_get0_s(ecdsa), out.baseAddress! + 32, 32)
                }
                return raw
            }
        }
    }

    static func encode(_ json: String) -> String { Secrets.base64url(Array(json.utf8)) }

    /// `header.payload.signature`, the signature made by `sign` over the first two parts.
    static func token(header: String, payload: String, sign: ([UInt8]) -> [UInt8]) -> String {
        let input = encode(header) + "." + encode(payload)
        return input + "." + Secrets.base64url(sign(Array(input.utf8)))
    }
}
