import COpenSSL
import Foundation
import Testing
@testable import TandemHTTP

/// A self-signed certificate made by the `openssl` command, once per test run.
final class TLSCertificate: Sendable {
    let directory: String
    var certificatePath: String { directory + "/c.pem" }
    var keyPath: String { directory + "/k.pem" }

    static let shared = Result { try TLSCertificate() }

    init() throws {
        signal(SIGPIPE, SIG_IGN)  // a write to a closed socket must fail, not kill the test run
        directory = NSTemporaryDirectory() + "tls-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
                             "-days", "1", "-keyout", "k.pem", "-out", "c.pem"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TLSError("openssl req exited \(process.terminationStatus)") }
    }
}

/// Our server transport on one end of a non-blocking socketpair, an OpenSSL client on the
/// other, both driven by hand from this thread: no timing involved, only bounded loops.
final class TLSPair {
    let server: TLSTransport
    let client: OpaquePointer
    let clientContext: OpaquePointer
    let clientFD: Int32
    var clientOpen = true

    init(alpn: [UInt8]? = [2, 0x68, 0x32, 8] + Array("http/1.1".utf8)) throws {
        let cert = try TLSCertificate.shared.get()
        let context = try TLSContext(certificatePath: cert.certificatePath, keyPath: cert.keyPath)
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw TLSError("socketpair failed") }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        server = try #require(context.makeTransport(fileDescriptor: fds[0]) as? TLSTransport)
        clientFD = fds[1]

        clientContext = try #require(SSL_CTX_new(TLS_client_method()))
        // Verify the server really presents our certificate.
        #expect(SSL_CTX_load_verify_locations(clientContext, cert.certificatePath, nil) == 1)
        SSL_CTX_set_verify(clientContext, SSL_VERIFY_PEER, nil)
        client = try #require(SSL_new(clientContext))
        _ = SSL_set_fd(client, clientFD)
        SSL_set_connect_state(client)
        if let alpn { #expect(SSL_set_alpn_protos(client, alpn, UInt32(alpn.count)) == 0) }
    }

    deinit {
        SSL_free(client)
        SSL_CTX_free(clientContext)
        if clientOpen { close(clientFD) }
        server.close()
    }

    /// One non-blocking client read; nil when nothing is there yet.
    func clientRead() -> (Int32, Int32, [UInt8]) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let n = SSL_read(client, &buffer, Int32(buffer.count))
        let error = n > 0 ? SSL_ERROR_NONE : SSL_get_error(client, n)
        return (n, error, n > 0 ? Array(buffer[..<Int(n)]) : [])
    }

    func serverRead() -> (TransportResult, [UInt8]) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let result = buffer.withUnsafeMutableBytes { server.read(into: $0) }
        if case .transferred(let n) = result { return (result, Array(buffer[..<n])) }
        return (result, [])
    }

    /// Client writes `bytes` while the server reads, until the server has them all.
    func sendToServer(_ bytes: [UInt8]) -> [UInt8] {
        var sent = 0
        var received: [UInt8] = []
        for _ in 0..<10_000 where received.count < bytes.count {
            if sent < bytes.count {
                let n = bytes[sent...].withUnsafeBytes { SSL_write(client, $0.baseAddress, Int32($0.count)) }
                if n > 0 { sent += Int(n) } else {
                    let e = SSL_get_error(client, n)
                    #expect(e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE, "client write error \(e)")
                }
            }
            while true {
                let (result, data) = serverRead()
                received += data
                if case .transferred = result { continue }
                #expect(result == .wouldBlock)
                break
            }
        }
        return received
    }

    /// The server writes `bytes` (retrying after .wouldBlock with the same bytes) while the
    /// client reads; returns what the client got and how often the server had to wait.
    func sendToClient(_ bytes: [UInt8]) -> (received: [UInt8], waits: Int) {
        var sent = 0
        var waits = 0
        var received: [UInt8] = []
        for _ in 0..<100_000 where received.count < bytes.count {
            // Write until the socket is full, then let the client catch up.
            writing: while sent < bytes.count {
                let result = bytes[sent...].withUnsafeBytes { server.write($0) }
                switch result {
                case .transferred(let n): sent += n
                case .wouldBlock: waits += 1; break writing
                default: Issue.record("server write: \(result)"); break writing
                }
            }
            while true {
                let (n, error, data) = clientRead()
                received += data
                if n > 0 { continue }
                #expect(error == SSL_ERROR_WANT_READ, "client read error \(error)")
                break
            }
        }
        return (received, waits)
    }
}

@Suite(.serialized) struct TLSTransportTests {
    @Test func handshakeAndBytesBothWays() throws {
        let pair = try TLSPair()
        #expect(!pair.server.isHandshakeComplete)
        // Before the client says anything the server can only wait.
        #expect(pair.serverRead().0 == .wouldBlock)

        let request = Array("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
        #expect(pair.sendToServer(request) == request)
        #expect(pair.server.isHandshakeComplete)
        #expect(pair.server.negotiatedProtocol == "http/1.1")
        #expect(SSL_get_verify_result(pair.client) == X509_V_OK)
        #expect(SSL_version(pair.client) >= TLS1_2_VERSION)

        // Big enough to fill the socket buffer: the server must see .wouldBlock and retry.
        let big = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        let (received, waits) = pair.sendToClient(big)
        #expect(received == big)
        #expect(waits > 0)

        let more = Array("second request".utf8)
        #expect(pair.sendToServer(more) == more)
    }

    @Test func serverWriteFirstDrivesTheHandshake() throws {
        let pair = try TLSPair()
        let hello = Array("server speaks first".utf8)
        #expect(pair.sendToClient(hello).received == hello)
        #expect(pair.server.isHandshakeComplete)
    }

    @Test func closeSendsCloseNotify() throws {
        let pair = try TLSPair()
        _ = pair.sendToServer(Array("hi".utf8))
        pair.server.close()
        let (n, error, _) = pair.clientRead()
        #expect(n == 0)
        #expect(error == SSL_ERROR_ZERO_RETURN)  // a clean close_notify, not a bare EOF
        #expect(SSL_get_shutdown(pair.client) & SSL_RECEIVED_SHUTDOWN != 0)
        // Closing twice is harmless, and a closed transport refuses work.
        pair.server.close()
        if case .failed = pair.serverRead().0 {} else { Issue.record("read after close should fail") }
    }

    @Test func clientCloseNotifyReadsAsClosed() throws {
        let pair = try TLSPair()
        _ = pair.sendToServer(Array("hi".utf8))
        _ = SSL_shutdown(pair.client)
        #expect(pair.serverRead().0 == .closed)
    }

    @Test func bareEOFReadsAsClosed() throws {
        let pair = try TLSPair()
        _ = pair.sendToServer(Array("hi".utf8))
        // Take the session tickets first: closing with unread bytes makes the kernel send a
        // reset, which is a failure, not a close.
        #expect(pair.clientRead().1 == SSL_ERROR_WANT_READ)
        close(pair.clientFD)
        pair.clientOpen = false
        #expect(pair.serverRead().0 == .closed)
    }

    @Test func resetReadsAsFailure() throws {
        let pair = try TLSPair()
        _ = pair.sendToServer(Array("hi".utf8))
        // The session tickets are still unread, so closing resets the connection.
        close(pair.clientFD)
        pair.clientOpen = false
        #expect(pair.serverRead().0 == .failed("Connection reset by peer"))
    }

    @Test func garbageFailsWithOpenSSLsMessageAndClearsTheQueue() throws {
        let pair = try TLSPair()
        let junk = Array("GET / HTTP/1.1\r\nHost: plain-http-on-a-tls-port\r\n\r\n".utf8)
        #expect(junk.withUnsafeBytes { write(pair.clientFD, $0.baseAddress, $0.count) } == junk.count)
        let (result, _) = pair.serverRead()
        guard case .failed(let message) = result else {
            Issue.record("expected failure, got \(result)")
            return
        }
        #expect(message.contains("SSL routines"), "\(message)")
        #expect(ERR_peek_error() == 0)
    }

    @Test func alpnWithoutHTTP11StillHandshakes() throws {
        let pair = try TLSPair(alpn: [2, 0x68, 0x32])
        let data = Array("x".utf8)
        #expect(pair.sendToServer(data) == data)
        #expect(pair.server.negotiatedProtocol == nil)
        let none = try TLSPair(alpn: nil)
        #expect(none.sendToServer(data) == data)
        #expect(none.server.negotiatedProtocol == nil)
    }

    @Test func badPathsGiveClearErrors() throws {
        let cert = try TLSCertificate.shared.get()
        #expect {
            try TLSContext(certificatePath: "/nonexistent/c.pem", keyPath: cert.keyPath)
        } throws: { error in
            let message = (error as? TLSError)?.message ?? ""
            return message.contains("/nonexistent/c.pem") && message.contains("error:")
        }
        #expect {
            try TLSContext(certificatePath: cert.certificatePath, keyPath: "/nonexistent/k.pem")
        } throws: { error in
            ((error as? TLSError)?.message ?? "").contains("cannot load private key from '/nonexistent/k.pem'")
        }
        // A key that is not the certificate's.
        let other = try TLSCertificate()
        #expect {
            try TLSContext(certificatePath: cert.certificatePath, keyPath: other.keyPath)
        } throws: { error in
            ((error as? TLSError)?.message ?? "").contains("key values mismatch")
        }
        #expect(ERR_peek_error() == 0)
    }

    @Test func readThatMustWriteFirstAsksForWritability() throws {
        let pair = try TLSPair()
        // The ClientHello goes out; the client then waits for the server's answer.
        #expect(SSL_get_error(pair.client, SSL_do_handshake(pair.client)) == SSL_ERROR_WANT_READ)
        // Fill the server's direction so the ServerHello cannot be written.
        let junk = [UInt8](repeating: 0, count: 65536)
        var filled = 0
        while filled < 64 << 20 {
            let n = junk.withUnsafeBytes { send(pair.server.fileDescriptor, $0.baseAddress, $0.count, 0x40) }
            if n <= 0 { break }
            filled += n
        }
        #expect(pair.serverRead().0 == .wouldBlock)
        #expect(pair.server.readNeedsWritable)
    }

    @Test func bytesLeftInsideOpenSSLAreReported() throws {
        let pair = try TLSPair()
        let message = Array("GET /a HTTP/1.1\r\nHost: t\r\n\r\nGET /b HTTP/1.1\r\nHost: t\r\n\r\n".utf8)
        #expect(pair.sendToServer(Array("x".utf8)) == Array("x".utf8))
        #expect(message.withUnsafeBytes { SSL_write(pair.client, $0.baseAddress, Int32($0.count)) } == Int32(message.count))
        // A small read takes part of the record; the rest waits in OpenSSL, not on the socket.
        var small = [UInt8](repeating: 0, count: 10)
        let first = small.withUnsafeMutableBytes { pair.server.read(into: $0) }
        #expect(first == .transferred(10))
        #expect(pair.server.hasBufferedInput)
        var received = Array(small)
        var rest = [UInt8](repeating: 0, count: 4096)
        while pair.server.hasBufferedInput {
            guard case .transferred(let n) = rest.withUnsafeMutableBytes({ pair.server.read(into: $0) }) else { break }
            received += rest[..<n]
        }
        #expect(received == message)
        #expect(!pair.server.hasBufferedInput)
        #expect(!pair.server.readNeedsWritable)
    }
}
