import COpenSSL

/// Server-side TLS settings: one certificate chain and key, shared by every connection.
///
/// `@unchecked Sendable` because the only state is an immutable `SSL_CTX` pointer, and
/// OpenSSL documents an `SSL_CTX` as safe to share between threads once it is set up;
/// nothing here changes it after `init`. Each connection gets its own `SSL` object.
public final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer

    /// Loads a PEM certificate chain (leaf first) and its private key.
    /// TLS 1.2 is the minimum; compression and renegotiation are off; ALPN offers `http/1.1`.
    public init(certificatePath: String, keyPath: String) throws(TLSError) {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw TLSError.openSSL("SSL_CTX_new failed")
        }
        func fail(_ what: String) -> TLSError {
            let error = TLSError.openSSL(what)
            SSL_CTX_free(context)
            return error
        }
        guard shim_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
            throw fail("cannot require TLS 1.2")
        }
        // A peer that drops the TCP connection without close_notify reads as a clean close:
        // HTTP's own framing (Content-Length, chunks) already detects a truncated message.
        SSL_CTX_set_options(
            context,
            shim_SSL_OP_NO_COMPRESSION | shim_SSL_OP_NO_RENEGOTIATION | shim_SSL_OP_IGNORE_UNEXPECTED_EOF)
        // The connection retries a blocked write from its output buffer, which may have moved.
        _ = shim_SSL_CTX_set_mode(
            context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        guard SSL_CTX_use_certificate_chain_file(context, certificatePath) == 1 else {
            throw fail("cannot load certificate chain from '\(certificatePath)'")
        }
        guard SSL_CTX_use_PrivateKey_file(context, keyPath, SSL_FILETYPE_PEM) == 1 else {
            throw fail("cannot load private key from '\(keyPath)'")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw fail("private key '\(keyPath)' does not match certificate '\(certificatePath)'")
        }
        shim_SSL_CTX_select_alpn_http11(context)
        self.context = context
    }

    deinit { SSL_CTX_free(context) }

    /// TLS over a connected, non-blocking socket; the handshake runs inside the first
    /// reads and writes. The transport owns the descriptor from now on.
    public func makeTransport(fileDescriptor: Int32) -> Transport {
        TLSTransport(context: self, fileDescriptor: fileDescriptor)
    }
}
