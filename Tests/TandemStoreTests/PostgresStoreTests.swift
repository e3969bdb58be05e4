import Foundation
import Testing
@testable import TandemStore

/// What only `PostgresStore` has: migrations shared by processes, a connection that can be
/// lost and a server that can be unreachable. The contract itself is tested with the other
/// stores (`StoreKind.postgres`).
@Suite(.enabled(if: !StoreKind.postgresCases.isEmpty))
struct PostgresStoreTests {
    let directory = TemporaryDirectory()

    /// In CI the PostgreSQL cases must run: a missing database is a failure, not a skip.
    @Test func aDatabaseIsConfiguredInCI() {
        if PostgresTestDatabase.inCI {
            #expect(PostgresTestDatabase.url != nil, "CI=true but TANDEM_TEST_DATABASE_URL is unset")
        }
    }

    func admin() throws -> PGConnection {
        guard let url = PostgresTestDatabase.url else { throw PostgresTestDatabase.NotConfigured() }
        return try PGConnection(conninfo: url, schema: nil)
    }

    /// Ends a server process the way a restart or an operator would, and waits until it is gone.
    func terminate(_ pid: Int32) throws {
        let admin = try admin()
        defer { admin.close() }
        try admin.query("SELECT pg_terminate_backend($1::integer, 5000)", [.int(Int(pid))])
    }

    /// The migrations ran once, recorded as versions; a store opened again finds everything.
    @Test func reopeningFindsTheSchemaAtItsVersionAndTheData() throws {
        let store = try PostgresTestDatabase.store(for: directory)
        try store.createDocument(Fixture.document("d"), snapshot: StoredSnapshot(documentID: "d", revision: 0, payload: [0, 1, 2]))
        try store.appendAndWait(Fixture.changes("d", 1...4))
        try store.setMeta("k", [0xFF, 0x00])
        let before = try store.loadAll()
        store.close()
        let reopened = try PostgresTestDatabase.store(for: directory)
        defer { reopened.close() }
        #expect(try reopened.schemaVersion() == PostgresSchema.latestVersion)
        #expect(try reopened.loadAll() == before)
        #expect(before.documents.first?.tail == Fixture.changes("d", 1...4))
        let rows = try reopened.read { c throws(StoreError) in try c.query("SELECT count(*) FROM tandem_schema_version").int(0, 0) }
        #expect(rows == PostgresSchema.migrations.count)
    }

    /// Eight processes' worth of stores opening one empty schema at once: the advisory lock
    /// lets one migrate while the others wait, then they all find it done.
    @Test func storesOpeningTogetherMigrateOnce() throws {
        let errors = Locked<[String]>([])
        let stores = Locked<[PostgresStore]>([])
        onThreads(8) { _ in
            do {
                let store = try PostgresTestDatabase.store(for: directory)
                stores.withLock { $0.append(store) }
            } catch {
                errors.withLock { $0.append("\(error)") }
            }
        }
        #expect(errors.withLock { $0 } == [])
        let opened = stores.withLock { $0 }
        defer { for store in opened { store.close() } }
        try opened.first?.createDocument(Fixture.document("d"))
        for store in opened { #expect(try store.lastRevision(document: "d") == 0) }
        #expect(try opened.first?.schemaVersion() == PostgresSchema.latestVersion)
    }

    /// A connection ended under the store (a server restart, an operator) costs nothing: the
    /// writer reconnects before its next batch, a read runs again on a fresh connection.
    @Test func aLostConnectionIsReopened() throws {
        let store = try PostgresTestDatabase.store(for: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        try store.appendAndWait(Fixture.changes("d", 1...2))
        #expect(try store.lastRevision(document: "d") == 2)
        try terminate(store.writer.backendPID.withLock { $0 })
        let readers = store.readers.idleBackendPIDs
        #expect(!readers.isEmpty)
        for pid in readers { try terminate(pid) }
        #expect(try store.lastRevision(document: "d") == 2)
        try store.appendAndWait(Fixture.changes("d", 3...3))
        #expect(store.health == .ok)
        #expect(try store.changes(document: "d", after: 0) == Fixture.changes("d", 1...3))
        #expect(store.statistics.failedTransactions == 0)
    }

    /// With the server unreachable, writes fail with `.io` (nothing stored), `health` fails,
    /// and the store recovers by itself once it can connect again: the next write commits.
    @Test func anUnreachableServerFailsWritesUntilItIsBack() throws {
        let store = try PostgresTestDatabase.store(for: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        try store.appendAndWait(Fixture.changes("d", 1...2))
        store.writer.reconnectTarget.withLock { $0 = "host=127.0.0.1 port=1 connect_timeout=2" }
        try terminate(store.writer.backendPID.withLock { $0 })

        let refused = StoreTicket()
        store.append(Fixture.changes("d", 3...3)) { refused.finish($0) }
        guard case .failure(.io(let message)) = refused.wait() else {
            Issue.record("expected .io, got \(refused.wait())")
            return
        }
        #expect(message.contains("cannot connect"))
        guard case .failing(.io, _) = store.health else {
            Issue.record("health should be failing, is \(store.health)")
            return
        }
        #expect(throws: StoreError.self) { try store.setMeta("k", [1]) }
        #expect(store.statistics.failedTransactions == 2)
        // Reads use their own connections, which still work.
        #expect(try store.lastRevision(document: "d") == 2)

        store.writer.reconnectTarget.withLock { $0 = nil }
        try store.appendAndWait(Fixture.changes("d", 3...3))
        #expect(store.health == .ok)
        #expect(try store.changes(document: "d", after: 0) == Fixture.changes("d", 1...3))
    }

    /// A database that cannot be reached when opening is an `.io` error, not a crash.
    @Test func openingAnUnreachableDatabaseThrows() {
        #expect {
            try PostgresStore(url: "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2")
        } throws: { error in
            guard case .io(let message) = error as? StoreError else { return false }
            return message.contains("cannot connect")
        }
    }
}
