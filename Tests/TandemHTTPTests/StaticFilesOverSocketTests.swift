import Testing
@testable import TandemHTTP

/// Static files behind a real server: what the raw request line says is all an attacker controls.
@Suite("Static files over real sockets", .serialized)
struct StaticFilesOverSocketTests {
    static func staticServer(_ site: StaticSite, _ body: (HTTPServer) throws -> Void) throws {
        let files = StaticFiles(root: site.root)
        var router = Router()
        router.fallback = { request, responder in
            responder.send(files.respond(to: request) ?? .error(.notFound, code: "not_found", message: "no such file"))
        }
        try withServer(handler: router.handler, body)
    }

    static let attacks: [String] = [
        "/../secret.txt",
        "/../../secret.txt",
        "/sub/../../secret.txt",
        "/%2e%2e/secret.txt",
        "/%2E%2e/secret.txt",
        "/%2E%2e/",
        "/.%2E/secret.txt",
        "/..%2fsecret.txt",
        "/..%2Fsecret.txt",
        "/sub%2f..%2f..%2fsecret.txt",
        "/%5c..%5csecret.txt",
        "/..%5csecret.txt",
        "/..\\secret.txt",
        "/%252e%252e/secret.txt",
        "/%c0%ae%c0%ae/secret.txt",
        "/..;/secret.txt",
        "/%2e%2e%00/secret.txt",
        "//etc/passwd",
        "//../secret.txt",
        "/./../secret.txt",
        "/escape",
        "/escape-absolute",
        "/escapedir/secret.txt",
        "/evil-sibling",
        "/.env",
        "/%2eenv",
        "../secret.txt",
        "http://t/../secret.txt",
        "/%",
    ]

    @Test func nothingOutsideTheRootIsServed() throws {
        let site = try StaticSite()
        try Self.staticServer(site) { server in
            for target in Self.attacks {
                let c = try TestClient(port: server.boundPort)
                try c.send("GET \(target) HTTP/1.1\r\nHost: t\r\n\r\n")
                let r = try c.readResponse()
                #expect(r.status == 400 || r.status == 404, "\(target) gave \(r.status)")
                #expect(!r.text.contains("SECRET") && !r.text.contains("root:"), "\(target) leaked \(r.text)")
                #expect(r.headers["Content-Type"] == "application/json; charset=utf-8", "\(target)")
            }
            // The same server does serve what is inside.
            let c = try TestClient(port: server.boundPort)
            try c.send("GET /style.css HTTP/1.1\r\nHost: t\r\n\r\nGET /sub/deeper/x.txt HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try c.readResponse().text == "body{}")
            #expect(try c.readResponse().text == "deep")
        }
    }

    @Test func directoryRedirectStaysOnThisHost() throws {
        let site = try StaticSite()
        try Self.staticServer(site) { server in
            for (target, location) in [("//sub", "/sub/"), ("///sub", "/sub/"), ("/sub", "/sub/"),
                                       ("//sub//deeper?x=1", "/sub/deeper/?x=1"), ("/%73ub", "/%73ub/")] {
                let c = try TestClient(port: server.boundPort)
                try c.send("GET \(target) HTTP/1.1\r\nHost: t\r\n\r\n")
                let r = try c.readResponse()
                #expect(r.status == 301, "\(target)")
                #expect(r.headers["Location"] == location, "\(target)")
            }
        }
    }
}
