import Testing
import TandemStore

/// The archive keeps runs of changes that left the server's memory and reads them back as
/// a gap-free sequence, however the runs of several nodes overlap.
@Suite struct ArchiveTests {
    let directory = TemporaryDirectory()

    func run(_ document: String, _ first: Int, _ last: Int, bytes: Int = 10) -> ArchivedRun {
        ArchivedRun(documentID: document, first: first, last: last, payload: [UInt8](repeating: UInt8(first % 256), count: bytes))
    }

    func firsts(_ runs: [ArchivedRun]) -> [Int] { runs.map(\.first) }

    @Test(arguments: StoreKind.allCases)
    func runsAreReadBackInOrderFromTheOneHoldingTheNextRevision(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        try store.perform([.archive(run("d", 11, 20)), .archive(run("d", 1, 10)), .archive(run("d", 21, 30))])
        #expect(try store.archivedRuns(document: "d", after: 0, maxBytes: 1000) == [run("d", 1, 10), run("d", 11, 20), run("d", 21, 30)])
        #expect(try firsts(store.archivedRuns(document: "d", after: 14, maxBytes: 1000)) == [11, 21])
        #expect(try firsts(store.archivedRuns(document: "d", after: 20, maxBytes: 1000)) == [21])
        // At least one run, then as many as fill maxBytes.
        #expect(try firsts(store.archivedRuns(document: "d", after: 0, maxBytes: 1)) == [1])
        #expect(try firsts(store.archivedRuns(document: "d", after: 0, maxBytes: 15)) == [1, 11])
        // Past the end, or before the oldest run: nothing.
        #expect(try store.archivedRuns(document: "d", after: 30, maxBytes: 1000) == [])
        #expect(try store.archivedRuns(document: "x", after: 0, maxBytes: 1000) == [])
        #expect(try store.archiveSizes() == ["d": 30])
    }

    @Test(arguments: StoreKind.allCases)
    func aGapEndsTheAnswerAndARunBeforeTheOldestIsNotThere(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        try store.perform([.archive(run("d", 5, 10)), .archive(run("d", 16, 20))])
        #expect(try firsts(store.archivedRuns(document: "d", after: 4, maxBytes: 1000)) == [5])
        #expect(try firsts(store.archivedRuns(document: "d", after: 7, maxBytes: 1000)) == [5])
        #expect(try store.archivedRuns(document: "d", after: 10, maxBytes: 1000) == [])
        #expect(try store.archivedRuns(document: "d", after: 0, maxBytes: 1000) == [])
        #expect(try firsts(store.archivedRuns(document: "d", after: 15, maxBytes: 1000)) == [16])
    }

    @Test(arguments: StoreKind.allCases)
    func overlappingRunsOfTwoNodesAreReadWithoutRepeatsAndTheFirstOneKeptWins(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        // Node A trimmed 1...100, node B 50...60 and 1...40 (kept: A's, which came first), then 61...120.
        try store.perform([.archive(run("d", 1, 100)), .archive(run("d", 50, 60)), .archive(run("d", 1, 40)), .archive(run("d", 61, 120))])
        let runs = try store.archivedRuns(document: "d", after: 0, maxBytes: 1000)
        #expect(runs.map { [$0.first, $0.last] } == [[1, 100], [61, 120]])
        #expect(try store.archivedRuns(document: "d", after: 55, maxBytes: 1000).map { [$0.first, $0.last] } == [[1, 100], [61, 120]])
    }

    @Test(arguments: StoreKind.allCases)
    func trimmingKeepsTheNewestRunsWithinTheBudget(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        try store.createDocument(Fixture.document("e"))
        try store.perform([.archive(run("d", 1, 10, bytes: 100)), .archive(run("d", 11, 20, bytes: 100)),
                           .archive(run("d", 21, 30, bytes: 100)), .archive(run("e", 1, 5, bytes: 7))])
        try store.perform([.trimArchive(document: "d", keepBytes: 250)])
        #expect(try store.archivedRuns(document: "d", after: 0, maxBytes: 1000) == [])
        #expect(try firsts(store.archivedRuns(document: "d", after: 10, maxBytes: 1000)) == [11, 21])
        #expect(try store.archiveSizes() == ["d": 200, "e": 7])
        try store.perform([.trimArchive(document: "d", keepBytes: 0)])
        #expect(try store.archiveSizes() == ["e": 7])
    }

    @Test(arguments: StoreKind.allCases)
    func runsOfAMissingDocumentAreDroppedAndGoWithADeletedOne(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        try store.perform([.archive(run("gone", 1, 10)), .archive(run("d", 1, 10)), .trimArchive(document: "gone", keepBytes: 0)])
        #expect(try store.archiveSizes() == ["d": 10])
        try store.deleteDocument("d")
        #expect(try store.archiveSizes() == [:])
        try store.createDocument(Fixture.document("d"))
        #expect(try store.archivedRuns(document: "d", after: 0, maxBytes: 1000) == [])
    }

    @Test(arguments: StoreKind.allCases)
    func aFailedUnitKeepsNoneOfItsRuns(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        try store.perform([.archive(run("d", 1, 10))])
        #expect(throws: StoreError.self) {
            try store.perform([.archive(run("d", 11, 20)), .trimArchive(document: "d", keepBytes: 0), .createDocument(Fixture.document("d"), snapshot: nil)])
        }
        #expect(try firsts(store.archivedRuns(document: "d", after: 0, maxBytes: 1000)) == [1])
    }

    @Test(arguments: StoreKind.allCases.filter { $0 != .memory })
    func theArchiveOutlivesAReopen(_ kind: StoreKind) throws {
        do {
            let store = try kind.make(in: directory)
            try store.createDocument(Fixture.document("d"))
            try store.perform([.archive(run("d", 1, 10))])
            store.close()
        }
        let store = try #require(try kind.reopen(in: directory))
        defer { store.close() }
        #expect(try store.archivedRuns(document: "d", after: 0, maxBytes: 1000) == [run("d", 1, 10)])
    }
}
