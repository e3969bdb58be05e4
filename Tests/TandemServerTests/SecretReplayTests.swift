import Synchronization
import Testing
import TandemHTTP
@testable import TandemServer

@Suite("Anonymous replays withhold secrets")
struct SecretReplayTests {
    final class Box: Sendable {
        let responses = Mutex<[HTTPResponse]>([])
        var responder: HTTPResponder { HTTPResponder { r in self.responses.withLock { $0.append(r) } } }
        var last: HTTPResponse? { responses.withLock { $0.last } }
    }

    static let created = HTTPResponse.json(Array(#"{"id":"d","ownerLink":{"id":"l_1","role":"owner","token":"l_1.s"}}"#.utf8), status: .created)

    @Test func aReplayHoldingATokenIs409ForAnAnonymousCaller() {
        let box = Box()
        IdempotencyMiddleware.withholdingSecrets(from: box.responder).send(Idempotency.replayed(Self.created))
        #expect(box.last?.status == .conflict)
        let body = String(decoding: box.last?.bodyBytes ?? [], as: UTF8.self)
        #expect(!body.contains("l_1.s"))
    }

    @Test func theFirstAnswerAndReplaysWithoutATokenPassUnchanged() {
        let first = Box(), replay = Box()
        IdempotencyMiddleware.withholdingSecrets(from: first.responder).send(Self.created)
        #expect(first.last?.status == .created)
        let edit = Idempotency.replayed(.json(Array(#"{"revision":3,"text":"\"token\": no"}"#.utf8)))
        IdempotencyMiddleware.withholdingSecrets(from: replay.responder).send(edit)
        #expect(replay.last?.status == .ok)
    }
}
