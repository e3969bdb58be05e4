import Testing
import TandemStore

@Suite struct DurabilityTests {
    let directory = TemporaryDirectory()

    /// GRDB forces synchronous=NORMAL on WAL writers after setup; the store must win over that.
    @Test(arguments: Durability.allCases)
    func pragmaReadsBack(_ durability: Durability) throws {
        let store = try SQLiteStore(directory: directory.path, durability: durability)
        defer { store.close() }
        // `full` is NORMAL in SQLite plus the store's own fdatasync of the WAL per group commit.
        let expected = ["off": 0, "normal": 1, "full": 1][durability.rawValue]
        #expect(try store.synchronousPragma() == expected)
        #expect(try store.journalMode() == "wal")
        // Still in force after writes went through the writer.
        try store.createDocument(Fixture.document("d"))
        try store.appendAndWait([Fixture.change("d", 1)])
        #expect(try store.synchronousPragma() == expected)
    }

    /// `full` acknowledges only after the store's own flush of the WAL; the other modes leave
    /// it to SQLite's pragma and never flush it themselves.
    @Test(arguments: Durability.allCases)
    func onlyFullFlushesTheWALBeforeCompleting(_ durability: Durability) throws {
        let store = try SQLiteStore(directory: directory.path, durability: durability)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        for revision in 1...5 { try store.appendAndWait([Fixture.change("d", revision)]) }
        let stats = store.statistics
        if durability == .full {
            // Every append waited for its completion, so each was flushed before the next.
            #expect(stats.walFlushes >= 5)
            #expect(stats.walFlushes <= stats.transactions)
        } else {
            #expect(stats.walFlushes == 0)
        }
    }

    @Test func reopeningWithAnotherModeTakesTheNewMode() throws {
        do {
            let store = try SQLiteStore(directory: directory.path, durability: .off)
            #expect(try store.synchronousPragma() == 0)
            store.close()
        }
        let store = try SQLiteStore(directory: directory.path, durability: .full)
        defer { store.close() }
        #expect(try store.synchronousPragma() == 1)
    }
}
