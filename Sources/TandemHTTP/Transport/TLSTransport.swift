import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// One server-side TLS connection over a non-blocking socket.
///
/// The handshake happens implicitly in the first `read`/`write`, so a `.wouldBlock`
/// can mean "wait for either direction" (a read may need to write handshake bytes).
/// Rules for the caller, as for any non-blocking OpenSSL stream:
/// - after a read, take what `hasBufferedInput` reports: OpenSSL decrypts whole records, so
///   bytes may sit in its buffer with nothing left on the socket for epoll to report;
/// - after a read's `.wouldBlock`, `readNeedsWritable` says which readiness to wait for;
/// - after a write's `.wouldBlock`, retry with the same bytes (their address may change).
///
/// Not thread-safe: one event-loop thread uses it, as `Transport` says.
public final class TLSTransport: Transport {
    public let fileDescriptor: Int32
    private let ssl: OpaquePointer?
    /// Keeps the `SSL_CTX` alive as long as this connection's `SSL` refers to it.
    private let context: TLSContext
    private let setupError: String?
    private var isClosed = false
    private var outputShut = false
    private var wantedWrite = false
    /// Set by the last read that would block: OpenSSL needed to write first.
    public private(set) var readNeedsWritable = false

    init(context: TLSContext, fileDescriptor: Int32) {
        self.context = context
        self.fileDescriptor = fileDescriptor
        ERR_clear_error()
        guard let ssl = SSL_new(context.context) else {
            self.ssl = nil
            self.setupError = TLSError.openSSL("SSL_new failed").message
            return
        }
        guard SSL_set_fd(ssl, fileDescriptor) == 1 else {
            self.setupError = TLSError.openSSL("SSL_set_fd failed").message
            SSL_free(ssl)
            self.ssl = nil
            return
        }
        SSL_set_accept_state(ssl)
        self.ssl = ssl
        self.setupError = nil
    }

    deinit {
        // Frees the TLS state only: the descriptor belongs to whoever failed to call close().
        if !isClosed, let ssl { SSL_free(ssl) }
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) -> TransportResult {
        guard let ssl, !isClosed else { return .failed(setupError ?? "TLS transport is closed") }
        guard let base = buffer.baseAddress, buffer.count > 0 else { return .transferred(0) }
        ERR_clear_error()
        readNeedsWritable = false
        let n = SSL_read(ssl, base, Int32(clamping: buffer.count))
        if n > 0 { return .transferred(Int(n)) }
        let result = outcome(of: n, ssl: ssl)
        readNeedsWritable = result == .wouldBlock && wantedWrite
        return result
    }

    public func write(_ buffer: UnsafeRawBufferPointer) -> TransportResult {
        guard let ssl, !isClosed else { return .failed(setupError ?? "TLS transport is closed") }
        guard let base = buffer.baseAddress, buffer.count > 0 else { return .transferred(0) }
        ERR_clear_error()
        let n = SSL_write(ssl, base, Int32(clamping: buffer.count))
        if n > 0 { return .transferred(Int(n)) }
        return outcome(of: n, ssl: ssl)
    }

    /// Whether decrypted bytes wait inside OpenSSL (read them before waiting for epoll).
    public var hasBufferedInput: Bool {
        guard let ssl, !isClosed else { return false }
        return SSL_pending(ssl) > 0
    }

    /// Whether the handshake has completed.
    public var isHandshakeComplete: Bool {
        guard let ssl, !isClosed else { return false }
        return SSL_is_init_finished(ssl) == 1
    }

    /// The protocol ALPN settled on (`"http/1.1"`), if any.
    public var negotiatedProtocol: String? {
        guard let ssl, !isClosed else { return nil }
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// Sends close_notify if it fits in the socket now (best effort, never waits), then
    /// half-closes TCP; what the peer still sends is for the caller to discard raw.
    public func shutdownOutput() {
        guard let ssl, !isClosed, !outputShut else { return }
        outputShut = true
        if SSL_is_init_finished(ssl) == 1 {
            ERR_clear_error()
            _ = SSL_shutdown(ssl)
            ERR_clear_error()
        }
        _ = Glibc.shutdown(fileDescriptor, Int32(SHUT_WR))
    }

    /// Sends close_notify if it fits in the socket now (best effort, never waits), then
    /// closes the descriptor.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        if let ssl {
            // A half-done handshake has nothing to notify; shutting it down would only error.
            // After shutdownOutput the notify is sent and the input was read past OpenSSL.
            if SSL_is_init_finished(ssl) == 1 && !outputShut {
                _ = SSL_shutdown(ssl)
            }
            ERR_clear_error()
            SSL_free(ssl)
        }
        _ = Glibc.close(fileDescriptor)
    }

    private func outcome(of result: Int32, ssl: OpaquePointer) -> TransportResult {
        let savedErrno = errno
        let code = SSL_get_error(ssl, result)
        wantedWrite = code == SSL_ERROR_WANT_WRITE
        switch code {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return .wouldBlock
        case SSL_ERROR_ZERO_RETURN:
            return .closed
        case SSL_ERROR_SYSCALL:
            let queued = TLSError.drainErrorQueue()
            if !queued.isEmpty { return .failed(queued) }
            if savedErrno == EAGAIN || savedErrno == EWOULDBLOCK { return .wouldBlock }
            if savedErrno == 0 { return .closed }
            return .failed(String(cString: strerror(savedErrno)))
        default:
            let queued = TLSError.drainErrorQueue()
            return .failed(queued.isEmpty ? "TLS error \(code)" : queued)
        }
    }
}
