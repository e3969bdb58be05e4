// OpenSSL's function-like macros are not imported into Swift; these wrappers stand in.
#ifndef TANDEM_COPENSSL_SHIM_H
#define TANDEM_COPENSSL_SHIM_H
#include <string.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <openssl/rand.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/core_names.h>
#include <openssl/pem.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/hmac.h>

static inline long shim_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
static inline long shim_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int v) { return SSL_CTX_set_min_proto_version(ctx, v); }
static inline long shim_SSL_set_mode(SSL *ssl, long mode) { return SSL_set_mode(ssl, mode); }
static const uint64_t shim_SSL_OP_NO_COMPRESSION = SSL_OP_NO_COMPRESSION;
static const uint64_t shim_SSL_OP_NO_RENEGOTIATION = SSL_OP_NO_RENEGOTIATION;
static const uint64_t shim_SSL_OP_IGNORE_UNEXPECTED_EOF = SSL_OP_IGNORE_UNEXPECTED_EOF;

// SHA-256 through the low-level calls: SHA256() and the EVP calls look the algorithm up in a
// provider on every call, and a session token is hashed on every authenticated request
// (see docs/performance.md).
static inline void shim_sha256(const void *data, size_t count, unsigned char *out) {
    SHA256_CTX context;
    SHA256_Init(&context);
    SHA256_Update(&context, data, count);
    SHA256_Final(out, &context);
}

// AES-256-GCM over a whole message: a 32-byte key, a 12-byte nonce, the 16-byte tag after the
// ciphertext (`out` holds inlen + 16 bytes). Returns 1 on success.
static inline int shim_aes256gcm_seal(const unsigned char *key, const unsigned char *nonce,
                                      const unsigned char *in, int inlen, unsigned char *out) {
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int len = 0, ok = ctx != NULL
        && EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, key, nonce) == 1
        && (inlen == 0 || EVP_EncryptUpdate(ctx, out, &len, in, inlen) == 1)
        && EVP_EncryptFinal_ex(ctx, out + len, &len) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, out + inlen) == 1;
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

// The reverse of shim_aes256gcm_seal: `in` is ciphertext and tag (inlen >= 16), `out` holds
// inlen - 16 bytes. Returns 1 only if the tag matches.
static inline int shim_aes256gcm_open(const unsigned char *key, const unsigned char *nonce,
                                      const unsigned char *in, int inlen, unsigned char *out) {
    if (inlen < 16) return 0;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int len = 0, textlen = inlen - 16, ok = ctx != NULL
        && EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, key, nonce) == 1
        && (textlen == 0 || EVP_DecryptUpdate(ctx, out, &len, in, textlen) == 1)
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, (void *)(in + textlen)) == 1
        && EVP_DecryptFinal_ex(ctx, out + len, &len) == 1;
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

// scrypt (RFC 7914) through OpenSSL 3's KDF: `outlen` bytes of key from the password and
// salt with cost N (a power of two), block size r and parallelism p. Memory is capped at
// `maxmem` bytes (scrypt needs 128 * N * r * p and a little more). Returns 1 on success.
static inline int shim_scrypt(const unsigned char *pass, size_t passlen, const unsigned char *salt, size_t saltlen,
                              uint64_t n, uint32_t r, uint32_t p, uint64_t maxmem, unsigned char *out, size_t outlen) {
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "SCRYPT", NULL);
    if (kdf == NULL) return 0;
    EVP_KDF_CTX *ctx = EVP_KDF_CTX_new(kdf);
    EVP_KDF_free(kdf);
    if (ctx == NULL) return 0;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_PASSWORD, (void *)pass, passlen),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, saltlen),
        OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_N, &n),
        OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_R, &r),
        OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_P, &p),
        OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_MAXMEM, &maxmem),
        OSSL_PARAM_construct_end(),
    };
    int ok = EVP_KDF_derive(ctx, out, outlen, params) == 1;
    EVP_KDF_CTX_free(ctx);
    return ok;
}

// ALPN: the server speaks only HTTP/1.1. A client that offers other protocols but not
// http/1.1 gets no ALPN answer (NOACK) rather than a failed handshake.
static const unsigned char shim_alpn_http11[] = { 8, 'h', 't', 't', 'p', '/', '1', '.', '1' };
static inline int shim_alpn_select_http11(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                                          const unsigned char *in, unsigned int inlen, void *arg) {
    (void)ssl; (void)arg;
    unsigned char *selected = NULL;
    if (SSL_select_next_proto(&selected, outlen, shim_alpn_http11, sizeof shim_alpn_http11, in, inlen)
        != OPENSSL_NPN_NEGOTIATED) {
        return SSL_TLSEXT_ERR_NOACK;
    }
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
}
static inline void shim_SSL_CTX_select_alpn_http11(SSL_CTX *ctx) {
    SSL_CTX_set_alpn_select_cb(ctx, shim_alpn_select_http11, NULL);
}
// JWS signatures (docs/API.md, "Tokens of an embedding application"). A public key from PEM
// text: NULL unless it is a SubjectPublicKeyInfo of an Ed25519 key or a P-256 (prime256v1) key.
// `*kind` is 1 for Ed25519, 2 for P-256. The caller frees the key with EVP_PKEY_free.
static inline EVP_PKEY *shim_jws_public_key(const char *pem, int pemlen, int *kind) {
    BIO *bio = BIO_new_mem_buf(pem, pemlen);
    if (bio == NULL) return NULL;
    EVP_PKEY *key = PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
    BIO_free(bio);
    if (key == NULL) return NULL;
    char group[64] = {0};
    size_t grouplen = 0;
    if (EVP_PKEY_get_base_id(key) == EVP_PKEY_ED25519) {
        *kind = 1;
    } else if (EVP_PKEY_get_base_id(key) == EVP_PKEY_EC
               && EVP_PKEY_get_group_name(key, group, sizeof group, &grouplen) == 1
               && strcmp(group, "prime256v1") == 0) {
        *kind = 2;
    } else {
        EVP_PKEY_free(key);
        return NULL;
    }
    return key;
}

// Ed25519 (EdDSA): the message is signed whole, so no digest is named. 1 only if it verifies.
static inline int shim_jws_verify_ed25519(EVP_PKEY *key, const unsigned char *msg, size_t msglen,
                                          const unsigned char *sig, size_t siglen) {
    if (siglen != 64) return 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx != NULL
        && EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, key) == 1
        && EVP_DigestVerify(ctx, sig, siglen, msg, msglen) == 1;
    EVP_MD_CTX_free(ctx);
    return ok;
}

// ES256: JWS carries r and s as two 32-byte big-endian halves (RFC 7518 §3.4); OpenSSL
// verifies DER, so they are re-encoded through ECDSA_SIG. 1 only if it verifies.
static inline int shim_jws_verify_es256(EVP_PKEY *key, const unsigned char *msg, size_t msglen,
                                        const unsigned char *sig, size_t siglen) {
    if (siglen != 64) return 0;
    ECDSA_SIG *ecdsa = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(sig, 32, NULL), *s = BN_bin2bn(sig + 32, 32, NULL);
    if (ecdsa == NULL || r == NULL || s == NULL || ECDSA_SIG_set0(ecdsa, r, s) != 1) {
        BN_free(r); BN_free(s); ECDSA_SIG_free(ecdsa);
        return 0;
    }
    unsigned char *der = NULL;
    int derlen = i2d_ECDSA_SIG(ecdsa, &der);
    ECDSA_SIG_free(ecdsa);
    if (derlen <= 0) return 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx != NULL
        && EVP_DigestVerifyInit(ctx, NULL, EVP_sha256(), NULL, key) == 1
        && EVP_DigestVerify(ctx, der, (size_t)derlen, msg, msglen) == 1;
    EVP_MD_CTX_free(ctx);
    OPENSSL_free(der);
    return ok;
}

// HMAC-SHA256 of `msg` under `key` into `out` (32 bytes). Returns 1 on success.
static inline int shim_hmac_sha256(const unsigned char *key, int keylen, const unsigned char *msg, size_t msglen,
                                   unsigned char *out) {
    unsigned int outlen = 0;
    return HMAC(EVP_sha256(), key, keylen, msg, msglen, out, &outlen) != NULL && outlen == 32;
}
#endif
