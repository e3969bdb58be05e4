import CLinux
import COpenSSL
import Glibc

/// A blocking one-shot `GET` to a server on this machine, over plain TCP or TLS: what
/// `tandem healthcheck` runs inside the container, where no curl is installed.
public enum HTTPProbe {
    public enum Outcome: Sendable, Equatable {
        /// The status line's code, and the address that answered.
        case status(Int, address: String)
        case failed(String)
    }

    /// Tries 127.0.0.1, then ::1 (a server bound to an IPv6-only address answers there only).
    /// With `tls`, the certificate is not verified: the peer is this machine's own server,
    /// and a health check has no trust store for a self-signed certificate.
    public static func get(path: String, port: Int, tls: Bool, timeoutSeconds: Int = 3) -> Outcome {
        var reasons: [String] = []
        for host in ["127.0.0.1", "::1"] {
            switch connect(host: host, port: port, timeoutSeconds: timeoutSeconds) {
            case .failure(let reason):
                reasons.append("\(host): \(reason.text)")
            case .success(let fd):
                defer { Glibc.close(fd) }
                let request = Array("GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8)
                let head = tls ? exchangeTLS(fd, request) : exchangePlain(fd, request)
                switch head {
                case .failure(let reason):
                    return .failed("\(host): \(reason.text)")
                case .success(let text):
                    let parts = text.split(separator: " ", maxSplits: 2)
                    guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let code = Int(parts[1]) else {
                        return .failed("\(host): not an HTTP response: \(text.prefix(40).debugDescription)")
                    }
                    return .status(code, address: host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)")
                }
            }
        }
        return .failed(reasons.joined(separator: "; "))
    }

    private struct Reason: Error { var text: String }

    private static func connect(host: String, port: Int, timeoutSeconds: Int) -> Result<Int32, Reason> {
        let v6 = host.contains(":")
        let fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(Reason(text: "socket: \(String(cString: strerror(errno)))")) }
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let rc: Int32
        if v6 {
            var addr = sockaddr_in6()
            addr.sin6_family = sa_family_t(AF_INET6)
            addr.sin6_port = in_port_t(UInt16(clamping: port).bigEndian)
            inet_pton(AF_INET6, host, &addr.sin6_addr)
            rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = in_port_t(UInt16(clamping: port).bigEndian)
            inet_pton(AF_INET, host, &addr.sin_addr)
            rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard rc == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            return .failure(Reason(text: "connect: \(reason)"))
        }
        return .success(fd)
    }

    /// The response's first line.
    private static func exchangePlain(_ fd: Int32, _ request: [UInt8]) -> Result<String, Reason> {
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, PlainTransport.noSignal) }
            guard n > 0 else { return .failure(Reason(text: "send: \(String(cString: strerror(errno)))")) }
            sent += n
        }
        return readStatusLine { buffer in recv(fd, buffer.baseAddress, buffer.count, 0) }
    }

    private static func exchangeTLS(_ fd: Int32, _ request: [UInt8]) -> Result<String, Reason> {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else { return .failure(Reason(text: TLSError.openSSL("SSL_CTX_new").message)) }
        defer { SSL_CTX_free(context) }
        SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        guard let ssl = SSL_new(context) else { return .failure(Reason(text: TLSError.openSSL("SSL_new").message)) }
        defer {
            _ = SSL_shutdown(ssl)
            SSL_free(ssl)
            ERR_clear_error()
        }
        _ = SSL_set_fd(ssl, fd)
        guard SSL_connect(ssl) == 1 else { return .failure(Reason(text: TLSError.openSSL("TLS handshake failed").message)) }
        let written = request.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
        guard written == Int32(request.count) else { return .failure(Reason(text: TLSError.openSSL("TLS write failed").message)) }
        return readStatusLine { buffer in Int(SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))) }
    }

    private static func readStatusLine(_ read: (UnsafeMutableRawBufferPointer) -> Int) -> Result<String, Reason> {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while received.count < 8192 {
            if let end = received.firstIndex(of: 13) ?? received.firstIndex(of: 10) {
                return .success(String(decoding: received[..<end], as: UTF8.self))
            }
            let n = chunk.withUnsafeMutableBytes { read($0) }
            guard n > 0 else {
                return .failure(Reason(text: received.isEmpty ? "no response" : "response ended inside the status line"))
            }
            received += chunk[..<n]
        }
        return .failure(Reason(text: "status line too long"))
    }
}
