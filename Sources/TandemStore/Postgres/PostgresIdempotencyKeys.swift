/// The `Idempotency-Key` answers that every node on one database shares, in the table
/// `idempotency_keys` of a `PostgresStore`'s schema: what lets a client resend to any node
/// and get the first answer.
///
/// Promises:
/// - `claim` is one statement on a reader connection (one round trip, its own transaction):
///   exactly one caller in the whole cluster gets `.claimed` for a key until its row expires
///   or is forgotten; every other caller gets the row as it is.
/// - `complete` and `forget` are jobs on the store's writer (group-committed, never waited
///   for): their completion runs once the row is committed, so an answer sent from it can be
///   replayed by any node.
/// - A row older than `ttl` (since its answer, or since its claim if it has none) counts as
///   absent: `claim` takes it over, `record` returns nil, `deleteExpired` removes it.
///
/// All times are the callers' (seconds since 1970), so tests can move the clock.
public final class PostgresIdempotencyKeys: Sendable {
    let store: PostgresStore
    public let ttl: Double

    public init(store: PostgresStore, ttl: Double = 24 * 3600) {
        self.store = store
        self.ttl = ttl
    }

    /// The columns a record is read from, in `record(_:_:)`'s order.
    private static let columns = "fingerprint, state, node, started, status, headers, body, answered"

    /// Claims `key` for `node` at `now` (`INSERT … ON CONFLICT`): `.claimed` if it was free or
    /// expired, else the record that holds it. If the connection broke after the claim
    /// committed, the read runs again and finds this very claim (same node and `started`):
    /// that is `.claimed` too.
    public func claim(_ key: String, fingerprint: [UInt8], node: String, now: Double) throws(StoreError) -> IdempotencyClaim {
        let sql = """
            WITH claimed AS (
                INSERT INTO idempotency_keys AS k (key, fingerprint, state, node, started)
                VALUES ($1, $2, 'pending', $3, $4)
                ON CONFLICT (key) DO UPDATE
                    SET fingerprint = excluded.fingerprint, state = 'pending', node = excluded.node,
                        started = excluded.started, status = NULL, headers = NULL, body = NULL, answered = NULL
                    WHERE coalesce(k.answered, k.started) <= $5
                RETURNING true AS mine
            )
            SELECT true, NULL::bytea, NULL, NULL, NULL::double precision, NULL::integer, NULL::bytea, NULL::bytea,
                   NULL::double precision FROM claimed
            UNION ALL
            SELECT false, \(Self.columns) FROM idempotency_keys
            WHERE key = $1 AND NOT EXISTS (SELECT 1 FROM claimed)
            """
        let parameters: [PGValue] = [.text(Self.column(key)), .bytes(fingerprint), .text(node), .double(now), .double(now - ttl)]
        // No row at all: the key's row was committed by another node after this statement's
        // snapshot was taken (so the INSERT saw it, the SELECT did not). Asking again sees it.
        for _ in 0..<3 {
            let result = try store.read { c throws(StoreError) in try c.query(sql, parameters) }
            guard result.count > 0 else { continue }
            if result.bool(0, 0) { return .claimed }
            let record = Self.record(result, 0, from: 1)
            if case .pending(node, now) = record.state { return .claimed }
            return .existing(record)
        }
        throw .io("idempotency key \(key) neither claimed nor found")
    }

    /// The record of `key` as the database has it now; nil if there is none or it expired.
    public func record(_ key: String, now: Double) throws(StoreError) -> IdempotencyRecord? {
        let result = try store.read { c throws(StoreError) in
            try c.query("SELECT \(Self.columns) FROM idempotency_keys WHERE key = $1 AND coalesce(answered, started) > $2",
                        [.text(Self.column(key)), .double(now - ttl)])
        }
        return result.count > 0 ? Self.record(result, 0, from: 0) : nil
    }

    /// Whether `node` is known dead: it kept a row in `cluster_nodes` (nodes with leases beat
    /// there) and the row expired. Its unanswered claims will never be answered.
    public func nodeIsGone(_ node: String) throws(StoreError) -> Bool {
        try store.read { c throws(StoreError) in
            try c.query("SELECT 1 FROM cluster_nodes WHERE node = $1 AND expires <= now()", [.text(node)]).count > 0
        }
    }

    /// Stores the answer to the claim `node` made at `started`; `completion` runs on the writer
    /// once it is committed (or failed). A claim that is no longer there (expired and taken
    /// over, or swept) is left alone: the completion still succeeds.
    public func complete(_ key: String, node: String, started: Double, answer: StoredAnswer,
                         completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        submit(completion) { c throws(StoreError) in
            try c.query("""
                UPDATE idempotency_keys SET state = 'done', status = $4, headers = $5, body = $6, answered = $7
                WHERE key = $1 AND node = $2 AND started = $3 AND state = 'pending'
                """, [.text(Self.column(key)), .text(node), .double(started), .int(answer.status),
                      .bytes(answer.headers), .bytes(answer.body), .double(answer.answered)])
        }
    }

    /// Gives up the claim `node` made at `started`, so the key is free again (an answer that
    /// changed nothing and is not kept).
    public func forget(_ key: String, node: String, started: Double,
                       completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        submit(completion) { c throws(StoreError) in
            try c.query("DELETE FROM idempotency_keys WHERE key = $1 AND node = $2 AND started = $3",
                        [.text(Self.column(key)), .text(node), .double(started)])
        }
    }

    /// Deletes every row older than `ttl` at `now`, pending ones included (their node stopped
    /// long ago). Housekeeping runs it about once a minute, on each node.
    public func deleteExpired(now: Double, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        submit(completion) { [ttl] c throws(StoreError) in
            try c.query("DELETE FROM idempotency_keys WHERE coalesce(answered, started) <= $1", [.double(now - ttl)])
        }
    }

    /// Deletes the oldest answered rows while all answered rows together take more than
    /// `budget` bytes (their headers and bodies, and `rowOverhead` each): the byte budget of
    /// the answers the cluster keeps, enforced by housekeeping on each node.
    public func deleteOverBudget(_ budget: Int, rowOverhead: Int = 256,
                                 completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        submit(completion) { c throws(StoreError) in
            try c.query("""
                DELETE FROM idempotency_keys WHERE key IN (
                    SELECT key FROM (
                        SELECT key, sum(coalesce(octet_length(headers), 0) + coalesce(octet_length(body), 0) + $2)
                            OVER (ORDER BY answered DESC, key) AS newer
                        FROM idempotency_keys WHERE state = 'done'
                    ) kept WHERE newer > $1)
                """, [.int(budget), .int(rowOverhead)])
        }
    }

    private func submit(_ completion: @escaping @Sendable (Result<Void, StoreError>) -> Void,
                        _ work: @escaping PostgresWriter.Work) {
        // Touches nothing the cluster feed names: other nodes read keys when asked, not on news.
        store.writer.submit(.init(changeCount: 0, work: .closure(work, touched: []), completion: completion))
    }

    /// A record from the columns `columns` names, starting at `first`.
    private static func record(_ result: PGResult, _ row: Int, from first: Int) -> IdempotencyRecord {
        let fingerprint = result.bytes(row, first)
        guard result.text(row, first + 1) == "done" else {
            return IdempotencyRecord(fingerprint: fingerprint,
                                     state: .pending(node: result.text(row, first + 2), started: result.double(row, first + 3)))
        }
        let answer = StoredAnswer(status: result.int(row, first + 4), headers: result.bytes(row, first + 5),
                                  body: result.bytes(row, first + 6), answered: result.double(row, first + 7))
        return IdempotencyRecord(fingerprint: fingerprint, state: .done(answer))
    }

    /// `key` as a TEXT value, which cannot hold U+0000 (the server's scope separator): U+0001
    /// escapes itself and U+0000, so distinct keys stay distinct.
    static func column(_ key: String) -> String {
        guard key.unicodeScalars.contains(where: { $0.value < 2 }) else { return key }
        var out = String.UnicodeScalarView()
        for scalar in key.unicodeScalars {
            switch scalar.value {
            case 0: out.append(contentsOf: "\u{1}0".unicodeScalars)
            case 1: out.append(contentsOf: "\u{1}1".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }
}
