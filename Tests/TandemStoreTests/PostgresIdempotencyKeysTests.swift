import Foundation
import Testing
@testable import TandemStore

/// `idempotency_keys`, as the nodes of a cluster share it: each "node" here is a store of its
/// own on the same schema, as two processes would be.
@Suite(.enabled(if: !StoreKind.postgresCases.isEmpty))
struct PostgresIdempotencyKeysTests {
    let directory = TemporaryDirectory()
    static let request: [UInt8] = Array("POST /documents/d/edits {}".utf8)
    static let other: [UInt8] = Array("POST /documents/d/undo".utf8)
    static let answer = StoredAnswer(status: 200, headers: [0, 0, 0, 1, 0x41, 0, 0, 0, 0], body: Array("{\"revision\":1}".utf8), answered: 11)

    /// Two nodes: two stores, one schema. Closed when the test ends.
    func nodes(ttl: Double = 24 * 3600) throws -> (PostgresIdempotencyKeys, PostgresIdempotencyKeys) {
        let first = try PostgresTestDatabase.store(for: directory)
        let second = try PostgresTestDatabase.store(for: directory)
        directory.onRemove { first.close(); second.close() }
        return (PostgresIdempotencyKeys(store: first, ttl: ttl), PostgresIdempotencyKeys(store: second, ttl: ttl))
    }

    func wait(_ submit: (@escaping @Sendable (Result<Void, StoreError>) -> Void) -> Void) throws {
        let ticket = StoreTicket()
        submit { ticket.finish($0) }
        try ticket.wait().get()
    }

    func rows(_ keys: PostgresIdempotencyKeys) throws -> Int {
        try keys.store.read { c throws(StoreError) in try c.query("SELECT count(*) FROM idempotency_keys").int(0, 0) }
    }

    @Test func theMigrationMadeTheTable() throws {
        let (a, _) = try nodes()
        #expect(try a.store.schemaVersion() == PostgresSchema.latestVersion)
        #expect(try rows(a) == 0)
    }

    /// The first claim wins; the other node sees it pending, then answered, with the first
    /// request's fingerprint whatever it asked with.
    @Test func theSecondNodeSeesTheFirstNodesClaimThenItsAnswer() throws {
        let (a, b) = try nodes()
        #expect(try a.claim("k", fingerprint: Self.request, node: "A", now: 10) == .claimed)
        #expect(try b.claim("k", fingerprint: Self.request, node: "B", now: 10.5)
            == .existing(IdempotencyRecord(fingerprint: Self.request, state: .pending(node: "A", started: 10))))
        try wait { a.complete("k", node: "A", started: 10, answer: Self.answer, completion: $0) }
        let done = IdempotencyRecord(fingerprint: Self.request, state: .done(Self.answer))
        #expect(try b.claim("k", fingerprint: Self.request, node: "B", now: 12) == .existing(done))
        #expect(try b.claim("k", fingerprint: Self.other, node: "B", now: 12) == .existing(done))
        #expect(try b.record("k", now: 12) == done)
        #expect(try a.claim("k", fingerprint: Self.request, node: "A", now: 13) == .existing(done))
        #expect(try b.record("absent", now: 12) == nil)
    }

    /// A claim whose answer is not kept is given up: the key is free for anyone.
    @Test func aForgottenClaimFreesTheKey() throws {
        let (a, b) = try nodes()
        #expect(try a.claim("k", fingerprint: Self.request, node: "A", now: 10) == .claimed)
        try wait { a.forget("k", node: "A", started: 10, completion: $0) }
        #expect(try b.record("k", now: 11) == nil)
        #expect(try b.claim("k", fingerprint: Self.other, node: "B", now: 11) == .claimed)
    }

    /// Storing or forgetting with a claim that is no longer there (taken over after expiring)
    /// leaves the new claim alone.
    @Test func onlyTheClaimItselfIsCompletedOrForgotten() throws {
        let (a, b) = try nodes(ttl: 100)
        #expect(try a.claim("k", fingerprint: Self.request, node: "A", now: 0) == .claimed)
        #expect(try b.claim("k", fingerprint: Self.request, node: "B", now: 150) == .claimed)
        try wait { a.complete("k", node: "A", started: 0, answer: Self.answer, completion: $0) }
        try wait { a.forget("k", node: "A", started: 0, completion: $0) }
        #expect(try a.record("k", now: 151) == IdempotencyRecord(fingerprint: Self.request, state: .pending(node: "B", started: 150)))
    }

    /// Rows older than the TTL are absent when read, free to claim, and deleted by the sweep.
    @Test func expiredRowsCountAsAbsentAndAreDeleted() throws {
        let (a, b) = try nodes(ttl: 100)
        #expect(try a.claim("answered", fingerprint: Self.request, node: "A", now: 0) == .claimed)
        try wait { a.complete("answered", node: "A", started: 0, answer: Self.answer, completion: $0) }  // answered at 11
        #expect(try a.claim("pending", fingerprint: Self.request, node: "A", now: 5) == .claimed)
        #expect(try a.claim("young", fingerprint: Self.request, node: "A", now: 90) == .claimed)
        #expect(try b.record("answered", now: 110) != nil)
        #expect(try b.record("answered", now: 111) == nil)
        #expect(try b.record("pending", now: 105) == nil)
        try wait { b.deleteExpired(now: 120, completion: $0) }
        #expect(try rows(a) == 1)
        #expect(try b.record("young", now: 120) != nil)
        // Taken over before any sweep: the new claim replaces the old answer.
        #expect(try a.claim("young", fingerprint: Self.other, node: "B", now: 191) == .claimed)
        #expect(try a.record("young", now: 191)?.fingerprint == Self.other)
    }

    /// Many requests with one key on two nodes at once: exactly one claims it.
    @Test func simultaneousClaimsOnTwoNodesHaveOneWinner() throws {
        let (a, b) = try nodes()
        for round in 0..<5 {
            let wins = Locked(0)
            let errors = Locked<[String]>([])
            onThreads(8) { index in
                let keys = index % 2 == 0 ? a : b
                do {
                    let claim = try keys.claim("k\(round)", fingerprint: Self.request, node: "n\(index)", now: Double(index))
                    if claim == .claimed { wins.withLock { $0 += 1 } }
                } catch {
                    errors.withLock { $0.append("\(error)") }
                }
            }
            #expect(errors.withLock { $0 } == [])
            #expect(wins.withLock { $0 } == 1)
        }
    }

    /// The server scopes keys with U+0000, which TEXT cannot hold: escaped, keys that differ
    /// stay apart.
    @Test func keysWithControlCharactersStayDistinct() throws {
        let (a, _) = try nodes()
        let keys = ["session s\u{0}k", "session s\u{1}0k", "session s\u{1}k", "session s\u{0}\u{1}k", "session s0k"]
        #expect(Set(keys.map(PostgresIdempotencyKeys.column)).count == keys.count)
        for key in keys { #expect(try a.claim(key, fingerprint: Self.request, node: "A", now: 1) == .claimed) }
        #expect(try rows(a) == keys.count)
        #expect(PostgresIdempotencyKeys.column("plain key") == "plain key")
    }

    /// A claim whose answer was lost with its connection finds itself when read again.
    @Test func findingItsOwnClaimIsClaimed() throws {
        let (a, _) = try nodes()
        #expect(try a.claim("k", fingerprint: Self.request, node: "A", now: 10) == .claimed)
        #expect(try a.claim("k", fingerprint: Self.request, node: "A", now: 10) == .claimed)
        #expect(try a.claim("k", fingerprint: Self.request, node: "A", now: 10.25) != .claimed)
    }
}
