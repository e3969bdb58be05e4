import Foundation
import Testing
@testable import TandemStore

/// Document leases as two nodes of a cluster share them: each "node" is a store of its own on
/// the same schema, as two processes would be, with fencing on.
@Suite(.enabled(if: !StoreKind.postgresCases.isEmpty))
struct PostgresLeasesTests {
    let directory = TemporaryDirectory()

    /// Two live nodes with leases lasting `ttl` seconds. Closed when the test ends.
    func nodes(ttl: Double = 30) throws -> (PostgresLeases, PostgresLeases) {
        let first = try PostgresTestDatabase.store(for: directory)
        let second = try PostgresTestDatabase.store(for: directory)
        directory.onRemove { first.close(); second.close() }
        let a = PostgresLeases(store: first, ttl: ttl), b = PostgresLeases(store: second, ttl: ttl)
        try a.heartbeat(address: "10.0.0.1:8080")
        try b.heartbeat(address: "10.0.0.2:8080")
        return (a, b)
    }

    func write(_ leases: PostgresLeases, _ writes: [StoreWrite]) -> Result<Void, StoreError> {
        let ticket = StoreTicket()
        leases.store.submit(writes) { ticket.finish($0) }
        return Result { () throws(StoreError) in try ticket.wait().get() }
    }

    func failure(_ result: Result<Void, StoreError>?) -> StoreError? {
        if case .failure(let error) = result { error } else { nil }
    }

    @Test func theFirstNodeToAskOwnsTheDocumentAndTheOtherIsToldWhere() throws {
        let (a, b) = try nodes()
        #expect(try a.acquire("d") == .this(epoch: 1))
        #expect(try b.acquire("d") == .other(node: a.store.nodeID, address: "10.0.0.1:8080", epoch: 1))
        #expect(try a.acquire("d") == .this(epoch: 1))
        #expect(try b.holder(of: "d") == .other(node: a.store.nodeID, address: "10.0.0.1:8080", epoch: 1))
        #expect(try b.liveNodes().map(\.address).sorted() == ["10.0.0.1:8080", "10.0.0.2:8080"])
    }

    @Test func onlyTheOwnerCommitsToItsDocument() throws {
        let (a, b) = try nodes()
        _ = try a.acquire("d")
        #expect(throws: Never.self) { try write(a, [.createDocument(Fixture.document("d"), snapshot: nil)]).get() }
        #expect(throws: Never.self) { try write(a, [.append([Fixture.change("d", 1)])]).get() }
        #expect(failure(write(b, [.append([Fixture.change("d", 2)])])) == .leaseLost(document: "d"))
        #expect(try a.store.lastRevision(document: "d") == 1)
    }

    /// A node that stops renewing (killed, paused, cut off) loses its leases once its row
    /// expires: another takes them under the next epoch, and the first, back, cannot commit.
    @Test func aNodeWhoseHeartbeatLapsedIsFencedOutAfterATakeover() throws {
        let (a, b) = try nodes(ttl: 0.5)
        _ = try a.acquire("d")
        try write(a, [.createDocument(Fixture.document("d"), snapshot: nil), .append([Fixture.change("d", 1)])]).get()
        #expect(try b.acquire("d") == .other(node: a.store.nodeID, address: "10.0.0.1:8080", epoch: 1))
        Thread.sleep(forTimeInterval: 0.8)
        try b.heartbeat(address: "10.0.0.2:8080")
        #expect(try b.acquire("d") == .this(epoch: 2))
        try write(b, [.append([Fixture.change("d", 2)])]).get()
        // The first node wakes up, still believing it owns the document.
        try a.heartbeat(address: "10.0.0.1:8080")
        #expect(a.held["d"] == 1)
        #expect(failure(write(a, [.append([Fixture.change("d", 3)])])) == .leaseLost(document: "d"))
        #expect(try a.store.lastRevision(document: "d") == 2)
        // And cannot take it back while the new owner lives.
        #expect(try a.acquire("d") == .other(node: b.store.nodeID, address: "10.0.0.2:8080", epoch: 2))
    }

    /// A holder whose own heartbeat lapsed while nobody took its document keeps it, at the
    /// same epoch, and goes on committing (it must not fence itself out).
    @Test func aHolderWhoseHeartbeatLapsedKeepsItsLeaseWhileNobodyTookIt() throws {
        let (a, _) = try nodes(ttl: 0.5)
        #expect(try a.acquire("d") == .this(epoch: 1))
        try write(a, [.createDocument(Fixture.document("d"), snapshot: nil)]).get()
        Thread.sleep(forTimeInterval: 0.8)
        #expect(try a.acquire("d") == .this(epoch: 1))
        #expect(throws: Never.self) { try write(a, [.append([Fixture.change("d", 1)])]).get() }
    }

    /// Graceful shutdown: the owner hands the lease over; the successor commits at once, the
    /// old owner no more.
    @Test func aHandOverMovesTheLeaseWithoutWaitingForExpiry() throws {
        let (a, b) = try nodes()
        _ = try a.acquire("d")
        try write(a, [.createDocument(Fixture.document("d"), snapshot: nil)]).get()
        #expect(try a.handOver("d", to: b.store.nodeID))
        #expect(try b.acquire("d") == .this(epoch: 2))
        try write(b, [.append([Fixture.change("d", 1)])]).get()
        #expect(failure(write(a, [.append([Fixture.change("d", 2)])])) == .leaseLost(document: "d"))
        #expect(try !a.handOver("d", to: b.store.nodeID))
    }

    /// A node that leaves lets the others take its documents at once.
    @Test func leavingFreesTheLeases() throws {
        let (a, b) = try nodes()
        _ = try a.acquire("d")
        try a.leave()
        #expect(try b.acquire("d") == .this(epoch: 2))
        #expect(a.held.isEmpty)
    }

    /// In one batch, only the writes to a document whose lease was lost fail: the others commit.
    @Test func aLostLeaseFailsOnlyItsOwnWritesInABatch() throws {
        let (a, b) = try nodes()
        _ = try a.acquire("kept")
        _ = try a.acquire("lost")
        try write(a, [.createDocument(Fixture.document("kept"), snapshot: nil)]).get()
        try write(a, [.createDocument(Fixture.document("lost"), snapshot: nil)]).get()
        try #require(try a.handOver("lost", to: b.store.nodeID))
        a.store.writer.fence.hold("lost", epoch: 1)  // as if the hand-over's news had not reached the writer
        let results = Locked<[Int: Result<Void, StoreError>]>([:])
        let done = DispatchGroup()
        for (i, writes) in [[StoreWrite.append([Fixture.change("kept", 1)])], [.append([Fixture.change("lost", 1)])],
                            [.append([Fixture.change("kept", 2)])], [.upsertSession(StoredSession(id: "s", tokenHash: [1], name: "S", color: "#123456", created: 1, lastSeen: 1))]].enumerated() {
            done.enter()
            a.store.submit(writes) { r in results.withLock { $0[i] = r }; done.leave() }
        }
        done.wait()
        let r = results.withLock { $0 }
        #expect(r.count == 4)
        #expect(failure(r[0]) == nil)
        #expect(failure(r[1]) == .leaseLost(document: "lost"))
        #expect(failure(r[2]) == nil)
        #expect(failure(r[3]) == nil)
        #expect(try a.store.lastRevision(document: "kept") == 2)
        #expect(try a.store.lastRevision(document: "lost") == 0)
    }

    /// Without leases made, a store writes any document, as before.
    @Test func aStoreWithoutLeasesIsNotFenced() throws {
        let store = try PostgresTestDatabase.store(for: directory)
        directory.onRemove { store.close() }
        let ticket = StoreTicket()
        store.submit([.createDocument(Fixture.document("d"), snapshot: nil)]) { ticket.finish($0) }
        try ticket.wait().get()
    }
}
