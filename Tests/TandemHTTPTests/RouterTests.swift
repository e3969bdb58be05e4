import Synchronization
import Testing
import TandemHTTP

@Suite("Router")
struct RouterTests {
    /// Routes `request` and returns the response it sent synchronously.
    static func run(_ router: Router, _ method: HTTPMethod, _ target: String) -> HTTPResponse? {
        let box = Mutex<HTTPResponse?>(nil)
        let responder = HTTPResponder { r in box.withLock { $0 = r } }
        router.handler(HTTPRequest(method: method, target: target), responder)
        return box.withLock { $0 }
    }

    static func text(_ r: HTTPResponse?) -> String { String(decoding: r?.bodyBytes ?? [], as: UTF8.self) }

    var router: Router {
        var r = Router()
        r.get("/healthz") { _ in .text("ok") }
        r.get("/documents/:id") { req in .text("doc=\(req.parameters["id"]!) route=\(req.route!)") }
        r.post("/documents/:id/edits") { req in .text("edit=\(req.parameters["id"]!)") }
        r.get("/documents/:id/edits/:rev") { req in .text("\(req.parameters["id"]!)@\(req.parameters["rev"]!)") }
        r.get("/files/*") { req in .text("file=\(req.parameters["*"]!)") }
        r.delete("/documents/:id") { _ in HTTPResponse(status: .noContent) }
        return r
    }

    @Test func literalAndParameters() {
        #expect(Self.text(Self.run(router, .get, "/healthz")) == "ok")
        #expect(Self.text(Self.run(router, .get, "/documents/abc")) == "doc=abc route=/documents/:id")
        #expect(Self.text(Self.run(router, .post, "/documents/abc/edits")) == "edit=abc")
        #expect(Self.text(Self.run(router, .get, "/documents/a/edits/12?x=1")) == "a@12")
    }

    @Test func parametersArePercentDecodedWithinOneSegment() {
        #expect(Self.text(Self.run(router, .get, "/documents/a%20b")) == "doc=a b route=/documents/:id")
        #expect(Self.text(Self.run(router, .get, "/documents/caf%C3%A9")) == "doc=café route=/documents/:id")
        // An encoded slash or dot-segment never matches: 404, not another route.
        #expect(Self.run(router, .get, "/documents/a%2Fedits")?.status.code == 404)
        #expect(Self.run(router, .get, "/documents/..")?.status.code == 404)
        #expect(Self.run(router, .get, "/documents/%2E%2E")?.status.code == 404)
        #expect(Self.run(router, .get, "/documents/%zz")?.status.code == 404)
        #expect(Self.run(router, .get, "/documents/")?.status.code == 404)
        #expect(Self.run(router, .get, "/documents/a/b")?.status.code == 404)
    }

    @Test func wildcard() {
        #expect(Self.text(Self.run(router, .get, "/files/a/b.txt")) == "file=a/b.txt")
        #expect(Self.text(Self.run(router, .get, "/files/")) == "file=")
        #expect(Self.run(router, .get, "/files/a/../../etc")?.status.code == 404)
        #expect(Self.run(router, .get, "/files/a%2F..")?.status.code == 404)
    }

    @Test func literalMatchesEncodedForm() {
        #expect(Self.text(Self.run(router, .get, "/health%7A")) == "ok")
    }

    @Test func methodNotAllowedAndOptions() {
        let denied = Self.run(router, .put, "/documents/x")
        #expect(denied?.status.code == 405)
        #expect(denied?.headers["Allow"] == "GET, DELETE, HEAD, OPTIONS")
        #expect(Self.text(denied).contains("method_not_allowed"))
        let options = Self.run(router, .options, "/documents/x")
        #expect(options?.status.code == 204)
        #expect(options?.headers["Allow"] == "GET, DELETE, HEAD, OPTIONS")
    }

    @Test func headRunsGet() {
        #expect(Self.text(Self.run(router, .head, "/healthz")) == "ok")
    }

    @Test func notFoundAndFallback() {
        let missing = Self.run(router, .get, "/nothing")
        #expect(missing?.status.code == 404)
        #expect(Self.text(missing) == #"{"error":{"code":"not_found","message":"no resource at this path"}}"#)
        var r = router
        r.fallback = { req, responder in responder.send(.text("fallback \(req.target)")) }
        #expect(Self.text(Self.run(r, .get, "/nothing")) == "fallback /nothing")
        #expect(Self.run(router, .get, "*")?.status.code == 404)
    }

    @Test func finishingSeesOnlyTheRoutersOwnAnswers() {
        var r = router
        r.finishing = { request, response in
            var out = response
            out.headers.set("X-Finished", request.method.rawValue)
            return out
        }
        #expect(Self.run(r, .put, "/documents/x")?.headers["X-Finished"] == "PUT")
        #expect(Self.run(r, .options, "/documents/x")?.headers["X-Finished"] == "OPTIONS")
        #expect(Self.run(r, .options, "*")?.headers["X-Finished"] == "OPTIONS")
        #expect(Self.run(r, .get, "/nothing")?.headers["X-Finished"] == "GET")
        #expect(Self.run(r, .get, "/healthz")?.headers["X-Finished"] == nil)
        r.fallback = { req, responder in responder.send(.text("fallback \(req.target)")) }
        #expect(Self.run(r, .get, "/nothing")?.headers["X-Finished"] == nil)
    }
}
