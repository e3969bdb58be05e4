// OpenSSL's function-like macros are not imported into Swift; these wrappers stand in.
#ifndef TANDEM_COPENSSL_SHIM_H
#define TANDEM_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <openssl/rand.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/core_names.h>

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
#endif
