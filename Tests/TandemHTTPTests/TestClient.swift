import COpenSSL
import Glibc
import TandemHTTP

/// A blocking POSIX-socket HTTP client for tests: raw bytes out, parsed responses in.
final class TestClient {
    struct Response {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let fd: Int32
    private var buffer: [UInt8] = []
    /// Set when the client speaks TLS (no certificate check: the server is the test's own).
    private var tlsContext: OpaquePointer?
    private var tls: OpaquePointer?
    /// The TLS peer's close_notify arrived (a clean close, not a bare EOF).
    private(set) var receivedCloseNotify = false

    init(port: Int, host: String = "127.0.0.1", receiveTimeoutSeconds: Int = 10, useTLS: Bool = false,
         receiveBufferBytes: Int32? = nil) throws {
        let v6 = host.contains(":")
        fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        var tv = timeval(tv_sec: receiveTimeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBufferBytes {
            // Before connect, so the window offered to the server stays small.
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var rc: Int32
        if v6 {
            var addr = sockaddr_in6()
            addr.sin6_family = sa_family_t(AF_INET6)
            addr.sin6_port = UInt16(port).bigEndian
            inet_pton(AF_INET6, host, &addr.sin6_addr)
            rc = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        } else {
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = UInt16(port).bigEndian
            inet_pton(AF_INET, host, &addr.sin_addr)
            rc = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        guard rc == 0 else {
            Glibc.close(fd)
            throw Failure(description: "connect failed: errno \(errno)")
        }
        if useTLS {
            tlsContext = SSL_CTX_new(TLS_client_method())
            tls = SSL_new(tlsContext)
            _ = SSL_set_fd(tls, fd)
            guard SSL_connect(tls) == 1 else {
                ERR_clear_error()
                throw Failure(description: "TLS handshake failed")
            }
        }
    }

    deinit {
        if let tls { SSL_free(tls) }
        if let tlsContext { SSL_CTX_free(tlsContext) }
        ERR_clear_error()
        Glibc.close(fd)
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { raw -> Int in
                if let tls { return Int(SSL_write(tls, raw.baseAddress, Int32(raw.count))) }
                return Glibc.send(fd, raw.baseAddress, raw.count, 0x4000)
            }
            guard n > 0 else { throw Failure(description: "send failed: errno \(errno)") }
            offset += n
        }
    }

    /// Reads more bytes; false at EOF or reset.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        if let tls {
            let n = chunk.withUnsafeMutableBytes { SSL_read(tls, $0.baseAddress, Int32($0.count)) }
            if n > 0 { buffer.append(contentsOf: chunk[..<Int(n)]); return true }
            let savedErrno = errno
            let error = SSL_get_error(tls, n)
            ERR_clear_error()
            if error == SSL_ERROR_SYSCALL && (savedErrno == EAGAIN || savedErrno == EWOULDBLOCK) {
                throw Failure(description: "receive timed out")
            }
            if error == SSL_ERROR_ZERO_RETURN { receivedCloseNotify = true }
            if error == SSL_ERROR_WANT_READ { throw Failure(description: "receive timed out") }
            return false
        }
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 { buffer.append(contentsOf: chunk[..<n]); return true }
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { throw Failure(description: "receive timed out") }
        return false
    }

    private func readLine() throws -> String {
        while true {
            if let i = buffer.firstIndex(of: 10), i > 0, buffer[i - 1] == 13 {
                let line = String(decoding: buffer[..<(i - 1)], as: UTF8.self)
                buffer.removeSubrange(...i)
                return line
            }
            guard try fill() else { throw Failure(description: "EOF inside a line") }
        }
    }

    private func readExactly(_ n: Int) throws -> [UInt8] {
        while buffer.count < n {
            guard try fill() else { throw Failure(description: "EOF inside a body") }
        }
        let out = Array(buffer[..<n])
        buffer.removeSubrange(..<n)
        return out
    }

    /// Reads one response; `head` says it answers a HEAD request (no body follows).
    func readResponse(head: Bool = false) throws -> Response {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0] == "HTTP/1.1", let status = Int(parts[1]) else {
            throw Failure(description: "bad status line \(statusLine)")
        }
        var headers = HTTPHeaders()
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { throw Failure(description: "bad header \(line)") }
            headers.add(String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
        }
        var body: [UInt8] = []
        if head || status < 200 || status == 204 || status == 304 {
            return Response(status: status, headers: headers, body: body)
        }
        if headers.hasToken("chunked", in: "Transfer-Encoding") {
            while true {
                let sizeLine = try readLine()
                guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else { throw Failure(description: "bad chunk size \(sizeLine)") }
                if size == 0 {
                    while try !readLine().isEmpty {}
                    break
                }
                body += try readExactly(size)
                guard try readLine().isEmpty else { throw Failure(description: "chunk without CRLF") }
            }
        } else if let length = headers["Content-Length"].flatMap({ Int($0) }) {
            body = try readExactly(length)
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// Reads one chunk of a chunked body (after the head was read with `readHeadOnly`).
    func readChunk() throws -> [UInt8]? {
        let sizeLine = try readLine()
        guard let size = Int(sizeLine, radix: 16) else { throw Failure(description: "bad chunk size \(sizeLine)") }
        if size == 0 { _ = try readLine(); return nil }
        let data = try readExactly(size)
        _ = try readLine()
        return data
    }

    /// Reads a response head only (for streamed bodies read chunk by chunk).
    func readHeadOnly() throws -> Response { try readResponse(head: true) }

    /// Reads up to `limit` raw bytes of whatever arrives (plain sockets only); nil at EOF or reset.
    func receiveRaw(limit: Int) throws -> Int? {
        if !buffer.isEmpty {
            let n = min(limit, buffer.count)
            buffer.removeSubrange(..<n)
            return n
        }
        var chunk = [UInt8](repeating: 0, count: limit)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 { return n }
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { throw Failure(description: "receive timed out") }
        return nil
    }

    /// True when the server closed: EOF (or reset) with nothing more to read.
    func isClosedByPeer() -> Bool {
        if !buffer.isEmpty { return false }
        do { return try !fill() } catch { return false }
    }
}
