/// A text key (an id, a name) compared as SQLite's BINARY collation compares it: by its UTF-8
/// bytes. `String` itself compares by canonical equivalence ("é" == "e\u{301}"), which would
/// make one document of two ids that `SQLiteStore` keeps apart, and sorts otherwise than
/// its `ORDER BY`.
struct MemoryKey: Hashable, Comparable, Sendable {
    let string: String

    init(_ string: String) {
        self.string = string
    }

    static func == (a: MemoryKey, b: MemoryKey) -> Bool {
        a.string.utf8.elementsEqual(b.string.utf8)
    }

    static func < (a: MemoryKey, b: MemoryKey) -> Bool {
        a.string.utf8.lexicographicallyPrecedes(b.string.utf8)
    }

    func hash(into hasher: inout Hasher) {
        var string = string
        string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// SQLite keeps a NaN it is given as NULL, so the NOT NULL times of the schema refuse it as a
/// conflict, naming the first such column; `InMemoryStore` refuses the same writes alike.
/// (Infinities are stored as they are.)
enum NotNull {
    static func check(_ document: StoredDocument) throws(StoreError) {
        try check(("documents", "created", document.created), ("documents", "modified", document.modified))
    }

    static func check(_ version: StoredVersion) throws(StoreError) {
        try check(("versions", "time", version.time))
    }

    static func check(_ session: StoredSession) throws(StoreError) {
        try check(("sessions", "created", session.created), ("sessions", "last_seen", session.lastSeen))
    }

    private static func check(_ columns: (table: String, column: String, value: Double)...) throws(StoreError) {
        for column in columns where column.value.isNaN {
            throw .conflict("NOT NULL constraint failed: \(column.table).\(column.column)")
        }
    }
}
