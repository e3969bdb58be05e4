import ArgumentParser
import Foundation

/// `tandem healthcheck`: the container's HEALTHCHECK, so the runtime image needs no curl.
struct Healthcheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Exit 0 when the local server answers GET /healthz with 200 (TANDEM_PORT or 8080)."
    )

    @Option(help: "Port to check (env: TANDEM_PORT, default: 8080).")
    var port: Int?

    @Option(help: "Seconds to wait for the answer.")
    var timeout: Int = 3

    func run() throws {
        let port = try port ?? Environment.int("TANDEM_PORT") ?? 8080
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ExitCode(2) }
        defer { close(fd) }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { print("unhealthy: cannot connect to port \(port)"); throw ExitCode(1) }
        // With TLS on, a TCP connect is all this can check without a client certificate store.
        if Environment.string("TANDEM_TLS_CERT") != nil { print("healthy (tcp)"); return }
        let request = Array("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8)
        guard write(fd, request, request.count) == request.count else { throw ExitCode(1) }
        var buf = [UInt8](repeating: 0, count: 512)
        let n = read(fd, &buf, buf.count)
        let head = n > 0 ? String(decoding: buf[0..<n], as: UTF8.self) : ""
        guard head.hasPrefix("HTTP/1.1 200") else { print("unhealthy: \(head.prefix(40))"); throw ExitCode(1) }
        print("healthy")
    }
}
