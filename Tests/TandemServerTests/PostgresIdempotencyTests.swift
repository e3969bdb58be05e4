import Dispatch
import Foundation
import Logging
import Synchronization
import Testing
import TandemHTTP
@testable import TandemServer
@testable import TandemStore

/// The PostgreSQL the tests use, as in TandemStoreTests: in CI a missing one fails the tests.
enum TestDatabase {
    static let url: String? = ProcessInfo.processInfo.environment["TANDEM_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"
}

/// `PostgresIdempotency` on a real PostgreSQL (`TANDEM_TEST_DATABASE_URL`, skipped when unset
/// outside CI): "nodes" are instances on stores of their own, on one schema, as the servers
/// of a cluster are.
@Suite(.enabled(if: TestDatabase.url != nil || TestDatabase.inCI))
final class PostgresIdempotencyTests: Sendable {
    static let request = IdempotencyCache.fingerprint(of: HTTPRequest(method: .post, target: "/documents/d/edits", body: Array("{}".utf8)))
    static let other = IdempotencyCache.fingerprint(of: HTTPRequest(method: .post, target: "/documents/d/undo"))

    let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    let stores = Mutex<[PostgresStore]>([])

    deinit {
        for store in stores.withLock({ $0 }) { store.close() }
        guard let url = TestDatabase.url, let admin = try? PGConnection(conninfo: url, schema: nil) else { return }
        defer { admin.close() }
        try? admin.execute("DROP SCHEMA IF EXISTS \(PGConnection.identifier(schema)) CASCADE")
    }

    /// A node: its own store on the shared schema, polling fast so tests are quick.
    func node(_ name: String, pollTimeout: Double = 5, staleAfter: Double = 30) throws -> PostgresIdempotency {
        let url = try #require(TestDatabase.url, "CI=true but TANDEM_TEST_DATABASE_URL is unset")
        let store = try PostgresStore(url: url, schema: schema)
        stores.withLock { $0.append(store) }
        return PostgresIdempotency(keys: PostgresIdempotencyKeys(store: store), node: name,
                                   logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
                                   pollInterval: 0.01, pollTimeout: pollTimeout, staleAfter: staleAfter)
    }

    /// Collects what a responder was sent; `next()` waits for it.
    final class Box: Sendable {
        private let responses = Mutex<[HTTPResponse]>([])
        private let arrived = DispatchSemaphore(value: 0)
        var responder: HTTPResponder {
            HTTPResponder { r in
                self.responses.withLock { $0.append(r) }
                self.arrived.signal()
            }
        }
        var count: Int { responses.withLock { $0.count } }

        func next(timeout: Double = 10) -> HTTPResponse? {
            guard arrived.wait(timeout: .now() + timeout) == .success else { return nil }
            return responses.withLock { $0.last }
        }
    }

    /// A request's work that answers only when told, and counts how often it ran.
    final class Work: Sendable {
        private let held = Mutex<[HTTPResponder]>([])
        var runs: Int { held.withLock { $0.count } }
        var run: @Sendable (HTTPResponder) -> Void { { r in self.held.withLock { $0.append(r) } } }
        func answer(_ response: HTTPResponse) {
            for r in held.withLock({ $0 }) { r.send(response) }
        }
    }

    static let edited = HTTPResponse.json(Array(#"{"revision":1}"#.utf8), headers: ["ETag": #""1""#])

    /// The issue's case: the answer from node A is lost, the client resends to node B while A
    /// is still working; B waits, then answers A's answer, marked as a replay, and never runs it.
    @Test func anotherNodeWaitsForTheAnswerAndReplaysIt() throws {
        let a = try node("A"), b = try node("B")
        let first = Box(), resend = Box(), work = Work(), never = Work()
        a.perform("k", fingerprint: Self.request, responder: first.responder, work: work.run)
        #expect(work.runs == 1)
        b.perform("k", fingerprint: Self.request, responder: resend.responder, work: never.run)
        Thread.sleep(forTimeInterval: 0.1)
        #expect(resend.count == 0)
        work.answer(Self.edited)
        let original = try #require(first.next())
        #expect(original.headers["Idempotent-Replayed"] == nil)
        let replay = try #require(resend.next())
        #expect(replay.status.code == 200)
        #expect(replay.bodyBytes == Self.edited.bodyBytes)
        #expect(replay.headers["ETag"] == #""1""#)
        #expect(replay.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(replay.headers["Idempotent-Replayed"] == "true")
        #expect(never.runs == 0)
        // Later resends, to either node or a new one, get it from the database.
        for n in [a, b, try node("C")] {
            let again = Box()
            n.perform("k", fingerprint: Self.request, responder: again.responder, work: never.run)
            #expect(again.next()?.bodyBytes == Self.edited.bodyBytes)
        }
        #expect(never.runs == 0)
    }

    /// An answer over `Idempotency.maxKeptAnswerBytes` is sent whole once and kept as a
    /// marker: a resend on another node hears it was applied (409), and nothing runs twice.
    @Test func aLargeAnswerIsNotKeptWholeAndAResendHearsItWasApplied() throws {
        let a = try node("A"), b = try node("B")
        let first = Box(), resend = Box(), work = Work(), never = Work()
        let large = HTTPResponse.json(Array(repeating: UInt8(ascii: "x"), count: Idempotency.maxKeptAnswerBytes + 1))
        a.perform("big", fingerprint: Self.request, responder: first.responder, work: work.run)
        work.answer(large)
        #expect(try #require(first.next()).bodyBytes?.count == Idempotency.maxKeptAnswerBytes + 1)
        b.perform("big", fingerprint: Self.request, responder: resend.responder, work: never.run)
        let replay = try #require(resend.next())
        #expect(replay.status.code == 409)
        #expect(String(decoding: replay.bodyBytes ?? [], as: UTF8.self).contains("idempotency_answer_not_kept"))
        #expect(never.runs == 0)
    }

    /// Past the byte budget the oldest answers are forgotten, the newest kept (three of these
    /// fit, sealed, with room for their headers; four do not).
    @Test func answersOverTheByteBudgetAreForgottenOldestFirst() throws {
        let clock = Mutex(1_000_000.0)
        let url = try #require(TestDatabase.url, "CI=true but TANDEM_TEST_DATABASE_URL is unset")
        let store = try PostgresStore(url: url, schema: schema)
        stores.withLock { $0.append(store) }
        let a = PostgresIdempotency(keys: PostgresIdempotencyKeys(store: store), node: "A",
                                    logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
                                    pollInterval: 0.01, budgetBytes: 3 * (10_000 + 256 + 600), clock: { clock.withLock { $0 } })
        let body = HTTPResponse.json(Array(repeating: UInt8(ascii: "y"), count: 10_000))
        for i in 0..<5 {
            clock.withLock { $0 += 1 }
            let box = Box(), work = Work()
            a.perform("k\(i)", fingerprint: Self.request, responder: box.responder, work: work.run)
            work.answer(body)
            _ = try #require(box.next())
        }
        let done = DispatchSemaphore(value: 0)
        a.keys.deleteOverBudget(a.budgetBytes) { _ in done.signal() }
        #expect(done.wait(timeout: .now() + 10) == .success)
        let now = clock.withLock { $0 }
        let kept = try (0..<5).filter { try a.keys.record(SealedAnswers.column("k\($0)"), now: now) != nil }
        #expect(kept == [2, 3, 4])
    }

    /// The answer is in the database before the client is sent it: a node asked the moment
    /// the first answer arrived finds it.
    @Test func theAnswerIsStoredBeforeItIsSent() throws {
        let a = try node("A")
        let first = Box(), work = Work()
        a.perform("k", fingerprint: Self.request, responder: first.responder, work: work.run)
        work.answer(Self.edited)
        _ = try #require(first.next())
        let record = try a.keys.record(SealedAnswers.column("k"), now: Date().timeIntervalSince1970)
        guard case .done(let sealed) = record?.state else { Issue.record("not stored: \(String(describing: record))"); return }
        let answer = try #require(SealedAnswers.open(sealed, key: "k"))
        #expect(answer.status == 200 && answer.body == Self.edited.bodyBytes)
    }

    /// A share link's token is shown once and stored hashed: its answer, kept for resends,
    /// must not give it away to whoever reads the table without the client's key.
    @Test func theTableHoldsNeitherTheKeyNorTheAnswerInTheClear() throws {
        let a = try node("A")
        let first = Box(), work = Work()
        let secret = "tok_5eCr3t-share-link-token"
        a.perform("client-key-7f3a", fingerprint: Self.request, responder: first.responder, work: work.run)
        work.answer(.json(Array(#"{"token":"\#(secret)"}"#.utf8), headers: ["Location": "/links/\(secret)"]))
        _ = try #require(first.next())
        let url = try #require(TestDatabase.url)
        let c = try PGConnection(conninfo: url, schema: schema)
        defer { c.close() }
        let rows = try c.query("SELECT key, headers, body FROM idempotency_keys")
        #expect(rows.count == 1)
        let stored = String(decoding: Array(rows.text(0, 0).utf8) + rows.bytes(0, 1) + rows.bytes(0, 2), as: UTF8.self)
        #expect(!stored.contains("client-key-7f3a") && !stored.contains(secret))
        // The resend with the key gets the answer, on any node.
        let again = Box(), never = Work()
        try node("B").perform("client-key-7f3a", fingerprint: Self.request, responder: again.responder, work: never.run)
        #expect(again.next()?.bodyBytes == Array(#"{"token":"\#(secret)"}"#.utf8))
        #expect(never.runs == 0)
    }

    @Test func aSealedAnswerOpensOnlyWithItsKeyAndUnaltered() throws {
        let answer = StoredAnswer(status: 201, headers: Array("Location: /x".utf8), body: Array("{}".utf8), answered: 1)
        let sealed = try #require(SealedAnswers.seal(answer, key: "k"))
        #expect(SealedAnswers.open(sealed, key: "k") == answer)
        #expect(SealedAnswers.open(sealed, key: "other") == nil)
        var altered = sealed
        altered.body[altered.body.count - 1] ^= 1
        #expect(SealedAnswers.open(altered, key: "k") == nil)
        let empty = StoredAnswer(status: 204, headers: [], body: [], answered: 1)
        #expect(SealedAnswers.open(try #require(SealedAnswers.seal(empty, key: "k")), key: "k") == empty)
        #expect(SealedAnswers.column("k").count == 64 && SealedAnswers.column("k") != SealedAnswers.column("k2"))
    }

    @Test func theKeyWithADifferentRequestIsRefusedOnAnyNode() throws {
        let a = try node("A"), b = try node("B")
        let work = Work(), never = Work()
        a.perform("k", fingerprint: Self.request, responder: Box().responder, work: work.run)
        let early = Box()
        b.perform("k", fingerprint: Self.other, responder: early.responder, work: never.run)
        let refused = try #require(early.next())
        #expect(refused.status.code == 422)
        #expect(refused.bodyBytes.map { String(decoding: $0, as: UTF8.self) }?.contains("idempotency_key_reused") == true)
        work.answer(Self.edited)
        Thread.sleep(forTimeInterval: 0.1)
        let late = Box()
        b.perform("k", fingerprint: Self.other, responder: late.responder, work: never.run)
        #expect(late.next()?.status.code == 422)
        #expect(never.runs == 0)
    }

    /// Resends to the same node wait for the request in flight there, without the database.
    @Test func resendsToTheSameNodeWaitForIt() throws {
        let a = try node("A")
        let work = Work()
        let boxes = (0..<4).map { _ in Box() }
        for box in boxes { a.perform("k", fingerprint: Self.request, responder: box.responder, work: work.run) }
        #expect(work.runs == 1)
        work.answer(Self.edited)
        #expect(boxes[0].next()?.headers["Idempotent-Replayed"] == nil)
        for box in boxes.dropFirst() { #expect(box.next()?.headers["Idempotent-Replayed"] == "true") }
    }

    /// An answer that changed nothing is not kept: the node waiting for it then finds the key
    /// free and runs the request itself.
    @Test func aRefusedFirstRequestFreesTheKeyForTheWaitingNode() throws {
        let a = try node("A"), b = try node("B")
        let work = Work(), second = Work()
        let first = Box(), resend = Box()
        a.perform("k", fingerprint: Self.request, responder: first.responder, work: work.run)
        b.perform("k", fingerprint: Self.request, responder: resend.responder, work: second.run)
        work.answer(APIError.unprocessable("at is past the end").response)
        #expect(first.next()?.status.code == 422)
        for _ in 0..<500 where second.runs == 0 { Thread.sleep(forTimeInterval: 0.01) }
        #expect(second.runs == 1)
        second.answer(Self.edited)
        #expect(resend.next()?.status.code == 200)
    }

    /// A claim left pending long ago (its node died mid-request) is 409: whether it took
    /// effect is unknown, so it is neither waited for nor run again.
    @Test func aStaleClaimIsInFlight() throws {
        let b = try node("B", staleAfter: 30)
        #expect(try b.keys.claim(SealedAnswers.column("k"), fingerprint: Self.request, node: "dead", now: Date().timeIntervalSince1970 - 60) == .claimed)
        let resend = Box(), never = Work()
        b.perform("k", fingerprint: Self.request, responder: resend.responder, work: never.run)
        let answer = try #require(resend.next(timeout: 1))
        #expect(answer.status.code == 409)
        #expect(answer.bodyBytes.map { String(decoding: $0, as: UTF8.self) }?.contains("idempotency_key_in_flight") == true)
        #expect(never.runs == 0)
    }

    /// A claim still unanswered when the wait ends is 409 as well.
    @Test func theWaitIsBounded() throws {
        let a = try node("A"), b = try node("B", pollTimeout: 0.3)
        let work = Work(), never = Work()
        a.perform("k", fingerprint: Self.request, responder: Box().responder, work: work.run)
        let resend = Box()
        let started = Date()
        b.perform("k", fingerprint: Self.request, responder: resend.responder, work: never.run)
        #expect(resend.next(timeout: 5)?.status.code == 409)
        #expect(Date().timeIntervalSince(started) >= 0.3)
        #expect(never.runs == 0)
    }

    /// Without the database's word a keyed request is refused and not run: it might have been
    /// applied elsewhere already.
    @Test func anUnreachableDatabaseRefusesAndRunsNothing() throws {
        let a = try node("A")
        a.keys.store.close()
        let box = Box(), never = Work()
        a.perform("k", fingerprint: Self.request, responder: box.responder, work: never.run)
        let answer = try #require(box.next(timeout: 5))
        #expect(answer.status.code == 503)
        #expect(answer.bodyBytes.map { String(decoding: $0, as: UTF8.self) }?.contains("database_unavailable") == true)
        #expect(never.runs == 0)
    }

    @Test func answerHeadersSurviveEncoding() {
        let headers: HTTPHeaders = ["Content-Type": "text/plain", "ETag": #""7""#, "X-Empty": "", "Link": "a\u{0}b"]
        #expect(StoredAnswer.decode(StoredAnswer.encode(headers)) == headers)
        #expect(StoredAnswer.decode([]) == HTTPHeaders())
        #expect(StoredAnswer.decode([0, 0]) == HTTPHeaders())
    }
}
