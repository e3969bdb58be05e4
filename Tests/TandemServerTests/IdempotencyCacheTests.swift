import Synchronization
import Testing
import TandemHTTP
@testable import TandemServer

@Suite struct IdempotencyCacheTests {
    final class Box: Sendable {
        let responses = Mutex<[HTTPResponse]>([])
        var responder: HTTPResponder { HTTPResponder { r in self.responses.withLock { $0.append(r) } } }
        var count: Int { responses.withLock { $0.count } }
        var last: HTTPResponse? { responses.withLock { $0.last } }
    }

    @Test func resendGetsTheFirstAnswer() {
        let cache = IdempotencyCache()
        let first = Box()
        guard case .proceed = cache.claim("k", responder: first.responder, now: 0) else { Issue.record("first claim"); return }
        cache.complete("k", with: .json(Array("{\"revision\":1}".utf8)), now: 1)
        let again = Box()
        guard case .handled = cache.claim("k", responder: again.responder, now: 2) else { Issue.record("resend"); return }
        #expect(again.last?.bodyBytes == Array("{\"revision\":1}".utf8))
        #expect(again.last?.headers["Idempotent-Replayed"] == "true")
    }

    @Test func resendWhileInFlightWaitsForTheAnswer() {
        let cache = IdempotencyCache()
        _ = cache.claim("k", responder: Box().responder, now: 0)
        let waiting = Box()
        guard case .handled = cache.claim("k", responder: waiting.responder, now: 0) else { Issue.record("in flight"); return }
        #expect(waiting.count == 0)
        cache.complete("k", with: .json(Array("{}".utf8)), now: 1)
        #expect(waiting.count == 1)
    }

    @Test func rejectedRequestsAreForgotten() {
        let cache = IdempotencyCache()
        _ = cache.claim("k", responder: Box().responder, now: 0)
        cache.complete("k", with: APIError.invalidJSON("x").response, now: 1)
        guard case .proceed = cache.claim("k", responder: Box().responder, now: 2) else { Issue.record("should retry"); return }
    }

    @Test func answersExpireAndCapacityIsBounded() {
        let cache = IdempotencyCache(capacity: 2, ttl: 10)
        for k in ["a", "b", "c"] {
            _ = cache.claim(k, responder: Box().responder, now: 0)
            cache.complete(k, with: .json([]), now: 0)
        }
        guard case .proceed = cache.claim("a", responder: Box().responder, now: 1) else { Issue.record("evicted"); return }
        guard case .handled = cache.claim("c", responder: Box().responder, now: 1) else { Issue.record("kept"); return }
        guard case .proceed = cache.claim("c", responder: Box().responder, now: 100) else { Issue.record("expired"); return }
    }
}
