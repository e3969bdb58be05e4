import Glibc
import Testing
@testable import TandemHTTP

/// The whole server over TLS, with a certificate made by the `openssl` command.
@Suite("HTTPServer over TLS", .serialized)
struct TLSServerTests {
    static func tlsServer(_ tune: @escaping (inout HTTPServer.Configuration) -> Void = { _ in },
                          handler: @escaping HTTPHandler = echoHandler,
                          _ body: (HTTPServer) throws -> Void) throws {
        let cert = try TLSCertificate.shared.get()
        let tls = try TLSContext(certificatePath: cert.certificatePath, keyPath: cert.keyPath)
        try withServer({
            $0.transportFactory = { tls.makeTransport(fileDescriptor: $0) }
            tune(&$0)
        }, handler: handler, body)
    }

    @Test func pipelinedRequestsInOneWriteAreAnsweredInOrder() throws {
        try Self.tlsServer { server in
            let c = try TestClient(port: server.boundPort, useTLS: true)
            try c.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\nPOST /b HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nxyzGET /c HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try c.readResponse().text == "GET /a ")
            #expect(try c.readResponse().text == "POST /b xyz")
            #expect(try c.readResponse().text == "GET /c ")
        }
    }

    @Test func connectionCloseSendsCloseNotifyAfterTheResponse() throws {
        try Self.tlsServer { server in
            let c = try TestClient(port: server.boundPort, useTLS: true)
            // Unread bytes after a closing request: closing at once would reset the connection
            // and could destroy the response in flight; the server must drain instead.
            let filler = String(repeating: "x", count: 600)
            var raw = "GET /1 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
            for i in 0..<20 { raw += "GET /\(i)?\(filler) HTTP/1.1\r\nHost: t\r\n\r\n" }
            try c.send(raw)
            let r = try c.readResponse()
            #expect(r.text == "GET /1 ")
            #expect(r.headers["Connection"] == "close")
            #expect(c.isClosedByPeer())
            #expect(c.receivedCloseNotify)
        }
    }

    @Test func probeSpeaksTLS() throws {
        let handler: HTTPHandler = { request, responder in
            responder.send(request.target == "/healthz" ? .text("ok") : .error(.notFound, code: "not_found", message: "no"))
        }
        try Self.tlsServer(handler: handler) { server in
            #expect(HTTPProbe.get(path: "/healthz", port: server.boundPort, tls: true) == .status(200, address: "127.0.0.1:\(server.boundPort)"))
            #expect(HTTPProbe.get(path: "/nothing", port: server.boundPort, tls: true) == .status(404, address: "127.0.0.1:\(server.boundPort)"))
            // Plain HTTP to a TLS port is no answer at all.
            if case .status = HTTPProbe.get(path: "/healthz", port: server.boundPort, tls: false, timeoutSeconds: 2) {
                Issue.record("plain HTTP got a status from a TLS port")
            }
        }
    }

    @Test func probeFallsBackToIPv6AndReportsFailures() throws {
        try withServer({ $0.host = "::1" }, handler: echoHandler) { server in
            #expect(HTTPProbe.get(path: "/healthz", port: server.boundPort, tls: false) == .status(200, address: "[::1]:\(server.boundPort)"))
        }
        try withServer(handler: echoHandler) { server in
            #expect(HTTPProbe.get(path: "/healthz", port: server.boundPort, tls: false) == .status(200, address: "127.0.0.1:\(server.boundPort)"))
        }
        // A port nothing listens on (bound, then released).
        let fd = try SocketAddress.listen(on: SocketAddress.resolve(host: "127.0.0.1", port: 0)[0], shared: false)
        let port = SocketAddress.port(of: fd)
        close(fd)
        guard case .failed(let reason) = HTTPProbe.get(path: "/healthz", port: port, tls: false) else {
            Issue.record("expected a failure")
            return
        }
        #expect(reason.contains("127.0.0.1") && reason.contains("::1"), "\(reason)")
    }
}
