import Dispatch

/// The connections reads run on, apart from the writer's: at most `limit` at once, opened
/// when first needed and kept idle between reads, behind a lock. A read whose connection
/// broke is run once more on a fresh one (reads change nothing, so that is safe); a broken
/// connection is never put back.
///
/// One more slot is kept for the reads of the cluster sync (`PostgresStore.readingFeed`):
/// every request waits for a sync, so reads stuck behind a locked table (an idempotency
/// claim, a version) must not take every connection from it.
final class PostgresReaders: Sendable {
    private let conninfo: String
    private let schema: String?
    private let slots: DispatchSemaphore
    private let feedSlot = DispatchSemaphore(value: 1)
    /// Set while the current thread reads for the cluster sync.
    @TaskLocal static var readingFeed = false
    private let idle = Locked<(connections: [PGConnection], closed: Bool)>(([], false))

    init(conninfo: String, schema: String?, limit: Int = 4) {
        self.conninfo = conninfo
        self.schema = schema
        slots = DispatchSemaphore(value: limit)
    }

    func read<T>(_ body: (PGConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        let slot = Self.readingFeed ? feedSlot : slots
        slot.wait()
        defer { slot.signal() }
        for attempt in 0..<2 {
            let connection = try take()
            do {
                let value = try body(connection)
                give(connection)
                return value
            } catch {
                if connection.inTransaction, !connection.isBroken { try? connection.execute("ROLLBACK") }
                let broken = connection.isBroken
                if broken { connection.close() } else { give(connection) }
                if !broken || attempt == 1 { throw error }
            }
        }
        throw .io("unreachable")
    }

    private func take() throws(StoreError) -> PGConnection {
        let reused: PGConnection? = try idle.withLock { idle throws(StoreError) in
            if idle.closed { throw .closed }
            return idle.connections.popLast()
        }
        if let reused { return reused }
        return try PGConnection(conninfo: conninfo, schema: schema)
    }

    private func give(_ connection: PGConnection) {
        let kept = idle.withLock { idle in
            guard !idle.closed else { return false }
            idle.connections.append(connection)
            return true
        }
        if !kept { connection.close() }
    }

    /// The server processes of the idle connections (for tests that end them).
    var idleBackendPIDs: [Int32] {
        idle.withLock { $0.connections.map(\.backendPID) }
    }

    func close() {
        let connections = idle.withLock { idle in
            idle.closed = true
            defer { idle.connections = [] }
            return idle.connections
        }
        for connection in connections { connection.close() }
    }
}
