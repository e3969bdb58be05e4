import GRDB

extension SQLiteStore {
    /// Records when sessions were last active, all in one transaction. An `UPDATE`, never an
    /// insert: a session ended meanwhile stays ended.
    public func updateSessionsLastSeen(_ lastSeen: [String: Double]) throws(StoreError) {
        guard !lastSeen.isEmpty else { return }
        try write { db in
            let statement = try db.makeStatement(sql: "UPDATE sessions SET last_seen = ? WHERE id = ? AND last_seen < ?")
            for (id, time) in lastSeen {
                try statement.execute(arguments: [time, id, time])
            }
        }
    }
}
