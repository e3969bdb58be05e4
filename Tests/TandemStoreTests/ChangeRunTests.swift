import Foundation
import GRDB
import Testing
@testable import TandemStore

/// The change log is stored as runs of consecutive changes, one row per group commit.
@Suite struct ChangeRunTests {
    let directory = TemporaryDirectory()

    static func change(_ revision: Int, bytes count: Int) -> StoredChange {
        StoredChange(documentID: "d", revision: revision, payload: (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ revision) })
    }

    /// Payload lengths around every varint boundary, each decoded back alone and in a run.
    @Test(arguments: [0, 1, 127, 128, 129, 16_383, 16_384, 70_000])
    func lengthsRoundTrip(length: Int) throws {
        let run = [Self.change(7, bytes: length), Self.change(8, bytes: 3), Self.change(9, bytes: length)]
        let bytes = ChangeRun.encode(run)
        let header = length < 128 ? 1 : length < 16_384 ? 2 : 3
        #expect(bytes.count == 2 * (header + length) + 1 + 3)
        var all: [StoredChange] = []
        try ChangeRun.decode(bytes, document: "d", first: 7, last: 9, wanted: 1...Int.max, into: &all)
        #expect(all == run)
        var middle: [StoredChange] = []
        try ChangeRun.decode(bytes, document: "d", first: 7, last: 9, wanted: 8...8, into: &middle)
        #expect(middle == [run[1]])
    }

    /// Exact bytes: the format is on disk, so it may not drift.
    @Test func encodingIsLengthThenBytes() {
        let run = [StoredChange(documentID: "d", revision: 1, payload: [0xAA, 0xBB]), StoredChange(documentID: "d", revision: 2, payload: [])]
        #expect(ChangeRun.encode(run) == [0x02, 0xAA, 0xBB, 0x00])
        #expect(ChangeRun.encode([Self.change(1, bytes: 300)]).prefix(2) == [0xAC, 0x02])
    }

    /// A payload that does not hold exactly the run's changes is damage, never a shorter history.
    @Test(arguments: [
        ([0x02, 0xAA, 0xBB, 0x00], 1, 3),          // one change too few
        ([0x02, 0xAA, 0xBB, 0x00, 0x00], 1, 2),    // one too many
        ([0x03, 0xAA, 0xBB], 1, 1),                // length past the end
        ([0x80], 1, 1),                            // varint cut short
        ([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], 1, 1), // varint past 63 bits
        ([], 1, 1),                                // empty
        ([0x00], 2, 1),                            // last before first
        ([0x00], 0, 0),                            // revision 0 is never a change
    ] as [([UInt8], Int, Int)])
    func damagedRunsAreCorrupt(bytes: [UInt8], first: Int, last: Int) {
        var out: [StoredChange] = []
        #expect(throws: StoreError.corrupt("the stored changes \(first)...\(last) of d are damaged")) {
            try ChangeRun.decode(bytes, document: "d", first: first, last: last, wanted: 1...Int.max, into: &out)
        }
    }

    /// Each batch of the group commit is one row, and reads cut runs to the range asked for
    /// (the reads are the contract, so the store in memory answers them alike).
    @Test(arguments: StoreKind.allCases)
    func oneRowPerAppendAndReadsAcrossRuns(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        try store.appendAndWait(Fixture.changes("d", 1...5))
        try store.appendAndWait(Fixture.changes("d", 6...6))
        try store.appendAndWait(Fixture.changes("d", 7...12))
        if case .sqlite = kind { #expect(try rows(of: "d") == [1...5, 6...6, 7...12]) }
        for (after, through) in [(0, 12), (0, 3), (2, 9), (5, 6), (6, 7), (11, 12), (12, 12), (3, 3), (0, 100)] {
            #expect(try store.changes(document: "d", after: after, through: through)
                    == Fixture.changes("d", 1...12).filter { $0.revision > after && $0.revision <= through })
        }
    }

    /// Runs are cut at `maxBytes` of payload; a change larger than that is a run alone.
    @Test func largeBatchesAreCutIntoRuns() throws {
        let half = ChangeRun.maxBytes / 2
        let sizes = [half, half, 1, ChangeRun.maxBytes * 2, 10, 10, half]
        let changes = sizes.enumerated().map { Self.change($0.offset + 1, bytes: $0.element) }
        #expect(ChangeRun.split(changes[...]).map { $0.map(\.revision) } == [[1, 2], [3], [4], [5, 6, 7]])
        #expect(ChangeRun.split([]).isEmpty)

        let store = try SQLiteStore(directory: directory.path)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        try store.appendAndWait(changes)
        #expect(try rows(of: "d") == [1...2, 3...3, 4...4, 5...7])
        #expect(try store.changes(document: "d", after: 0) == changes)
        #expect(try store.changes(document: "d", after: 2, through: 5) == Array(changes[2...4]))
    }

    /// Trimming inside a run rewrites it to hold only the later changes: trimmed revisions are gone.
    @Test(arguments: StoreKind.allCases, [0, 3, 5, 6, 8, 12])
    func trimCutsTheStraddlingRun(_ kind: StoreKind, through: Int) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        try store.appendAndWait(Fixture.changes("d", 1...5))
        try store.appendAndWait(Fixture.changes("d", 6...12))
        try store.trimChanges(document: "d", through: through)
        let left = Array(max(1, through + 1)...13).dropLast()
        #expect(try store.changes(document: "d", after: 0) == left.map { Fixture.change("d", $0) })
        if case .sqlite = kind {
            #expect(try rows(of: "d").map(\.lowerBound) == (through < 5 ? [through + 1, 6] : through < 12 ? [through + 1] : []))
        }
        try store.appendAndWait([Fixture.change("d", 13)])
        #expect(try store.changes(document: "d", after: 12) == [Fixture.change("d", 13)])
    }

    /// A store written by a server before runs (schema v1, a row per change) opens with its
    /// whole history, and its log goes on.
    @Test func aVersionOneStoreIsMigrated() throws {
        let path = directory.path + "/" + SQLiteStore.fileName
        do {
            let queue = try DatabaseQueue(path: path)
            try Schema.migrator.migrate(queue, upTo: "v1")
            try queue.write { db in
                try db.execute(sql: "INSERT INTO documents (id, title, created, modified, metadata, revision) VALUES ('d', 'T', 1, 2, NULL, 3)")
                for revision in 1...3 {
                    try db.execute(sql: "INSERT INTO changes (document, revision, payload) VALUES ('d', ?, ?)",
                                   arguments: [revision, Data(Fixture.change("d", revision).payload)])
                }
            }
        }
        let store = try SQLiteStore(directory: directory.path)
        defer { store.close() }
        #expect(try store.changes(document: "d", after: 0) == Fixture.changes("d", 1...3))
        #expect(try store.loadAll().documents.first?.tail == Fixture.changes("d", 1...3))
        try store.appendAndWait(Fixture.changes("d", 4...5))
        #expect(try store.changes(document: "d", after: 2) == Fixture.changes("d", 3...5))
        #expect(try rows(of: "d") == [1...1, 2...2, 3...3, 4...5])
    }

    private func rows(of document: String) throws -> [ClosedRange<Int>] {
        let queue = try DatabaseQueue(path: directory.path + "/" + SQLiteStore.fileName)
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT first, last FROM change_runs WHERE document = ? ORDER BY last", arguments: [document])
                .map { (row: Row) -> ClosedRange<Int> in row[0]...row[1] }
        }
    }
}
