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

    static let request: [UInt8] = Secrets.sha256(Array("POST /documents/d/edits".utf8))

    @Test func resendGetsTheFirstAnswer() {
        let cache = IdempotencyCache()
        let first = Box()
        guard case .proceed = cache.claim("k", fingerprint: Self.request, responder: first.responder, now: 0) else { Issue.record("first claim"); return }
        cache.complete("k", with: .json(Array("{\"revision\":1}".utf8)), now: 1)
        let again = Box()
        guard case .handled = cache.claim("k", fingerprint: Self.request, responder: again.responder, now: 2) else { Issue.record("resend"); return }
        #expect(again.last?.bodyBytes == Array("{\"revision\":1}".utf8))
        #expect(again.last?.headers["Idempotent-Replayed"] == "true")
    }

    @Test func resendWhileInFlightWaitsForTheAnswer() {
        let cache = IdempotencyCache()
        _ = cache.claim("k", fingerprint: Self.request, responder: Box().responder, now: 0)
        let waiting = Box()
        guard case .handled = cache.claim("k", fingerprint: Self.request, responder: waiting.responder, now: 0) else { Issue.record("in flight"); return }
        #expect(waiting.count == 0)
        cache.complete("k", with: .json(Array("{}".utf8)), now: 1)
        #expect(waiting.count == 1)
    }

    @Test func rejectedRequestsAreForgotten() {
        let cache = IdempotencyCache()
        _ = cache.claim("k", fingerprint: Self.request, responder: Box().responder, now: 0)
        cache.complete("k", with: APIError.invalidJSON("x").response, now: 1)
        guard case .proceed = cache.claim("k", fingerprint: Self.request, responder: Box().responder, now: 2) else { Issue.record("should retry"); return }
    }

    @Test func answersExpireAndCapacityIsBounded() {
        let cache = IdempotencyCache(capacity: 2, ttl: 10)
        for k in ["a", "b", "c"] {
            _ = cache.claim(k, fingerprint: Self.request, responder: Box().responder, now: 0)
            cache.complete(k, with: .json([]), now: 0)
        }
        guard case .proceed = cache.claim("a", fingerprint: Self.request, responder: Box().responder, now: 1) else { Issue.record("evicted"); return }
        guard case .handled = cache.claim("c", fingerprint: Self.request, responder: Box().responder, now: 1) else { Issue.record("kept"); return }
        guard case .proceed = cache.claim("c", fingerprint: Self.request, responder: Box().responder, now: 100) else { Issue.record("expired"); return }
    }

    @Test func keptAnswersStayWithinTheByteBudgetOldestForgottenFirst() {
        // Each answer keeps 10,000 + 256 bytes: a 25,000-byte budget holds two of them.
        let cache = IdempotencyCache(budgetBytes: 25_000, ttl: 10)
        for k in ["a", "b", "c"] {
            _ = cache.claim(k, fingerprint: Self.request, responder: Box().responder, now: 0)
            cache.complete(k, with: .json([UInt8](repeating: 0x20, count: 10_000)), now: 0)
        }
        guard case .proceed = cache.claim("a", fingerprint: Self.request, responder: Box().responder, now: 1) else { Issue.record("a kept"); return }
        guard case .handled = cache.claim("b", fingerprint: Self.request, responder: Box().responder, now: 1) else { Issue.record("b forgotten"); return }
        guard case .handled = cache.claim("c", fingerprint: Self.request, responder: Box().responder, now: 1) else { Issue.record("c forgotten"); return }
    }

    @Test func aLargeAnswerIsNotKeptWholeAndItsReplayIs409() {
        let cache = IdempotencyCache()
        let first = Box()
        _ = cache.claim("k", fingerprint: Self.request, responder: first.responder, now: 0)
        cache.complete("k", with: .json([UInt8](repeating: 0x20, count: Idempotency.maxKeptAnswerBytes + 1)), now: 0)
        let replay = Box()
        guard case .handled = cache.claim("k", fingerprint: Self.request, responder: replay.responder, now: 1) else { Issue.record("forgotten"); return }
        #expect(replay.last?.status.code == 409)
        let body: [UInt8] = replay.last?.bodyBytes ?? []
        #expect(String(decoding: body, as: UTF8.self).contains("idempotency_answer_not_kept"))
    }

    @Test func aKeyWithADifferentRequestIsRefusedAndTheFirstAnswerKept() {
        let cache = IdempotencyCache()
        _ = cache.claim("k", fingerprint: Self.request, responder: Box().responder, now: 0)
        let other = Secrets.sha256(Array("POST /documents/d/undo".utf8))
        // While the first is in flight, and after it was answered.
        let early = Box()
        guard case .handled = cache.claim("k", fingerprint: other, responder: early.responder, now: 0) else { Issue.record("in flight"); return }
        #expect(early.last?.status.code == 422)
        cache.complete("k", with: .json(Array("{\"revision\":1}".utf8)), now: 1)
        let late = Box()
        guard case .handled = cache.claim("k", fingerprint: other, responder: late.responder, now: 2) else { Issue.record("answered"); return }
        #expect(late.last?.status.code == 422)
        #expect(late.last?.headers["Idempotent-Replayed"] == nil)
        let same = Box()
        _ = cache.claim("k", fingerprint: Self.request, responder: same.responder, now: 3)
        #expect(same.last?.bodyBytes == Array("{\"revision\":1}".utf8))
    }

    @Test func fingerprintCoversMethodTargetTypeAndBody() {
        func request(_ method: HTTPMethod, _ target: String, type: String = "application/json", body: String = "{}") -> HTTPRequest {
            HTTPRequest(method: method, target: target, headers: ["Content-Type": type], body: Array(body.utf8))
        }
        let base = IdempotencyCache.fingerprint(of: request(.post, "/documents/d/undo?scope=session"))
        #expect(base == IdempotencyCache.fingerprint(of: request(.post, "/documents/d/undo?scope=session")))
        #expect(base != IdempotencyCache.fingerprint(of: request(.post, "/documents/d/undo?scope=document")))
        #expect(base != IdempotencyCache.fingerprint(of: request(.put, "/documents/d/undo?scope=session")))
        #expect(base != IdempotencyCache.fingerprint(of: request(.post, "/documents/d/undo?scope=session", type: "text/plain")))
        #expect(base != IdempotencyCache.fingerprint(of: request(.post, "/documents/d/undo?scope=session", body: "{ }")))
    }
}
