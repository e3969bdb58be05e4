import Testing
import TandemStore

@Suite struct DurabilityTests {
    let directory = TemporaryDirectory()

    /// GRDB forces synchronous=NORMAL on WAL writers after setup; the store must win over that.
    @Test(arguments: Durability.allCases)
    func pragmaReadsBack(_ durability: Durability) throws {
        let store = try SQLiteStore(directory: directory.path, durability: durability)
        defer { store.close() }
        let expected = ["off": 0, "normal": 1, "full": 2][durability.rawValue]
        #expect(try store.synchronousPragma() == expected)
        #expect(try store.journalMode() == "wal")
        // Still in force after writes went through the writer.
        try store.createDocument(Fixture.document("d"))
        try store.appendAndWait([Fixture.change("d", 1)])
        #expect(try store.synchronousPragma() == expected)
    }

    @Test func reopeningWithAnotherModeTakesTheNewMode() throws {
        do {
            let store = try SQLiteStore(directory: directory.path, durability: .off)
            #expect(try store.synchronousPragma() == 0)
            store.close()
        }
        let store = try SQLiteStore(directory: directory.path, durability: .full)
        defer { store.close() }
        #expect(try store.synchronousPragma() == 2)
    }
}
