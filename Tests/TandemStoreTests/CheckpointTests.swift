import Foundation
import Testing
@testable import TandemStore

/// The WAL is copied into the database beside the writer, and still starts over: without the
/// writer's short finishing passes it would grow for as long as commits keep coming.
@Suite struct CheckpointTests {
    let directory = TemporaryDirectory()

    private func walSize(_ store: SQLiteStore) -> Int {
        let attributes = try? FileManager.default.attributesOfItem(atPath: store.path + "-wal")
        return (attributes?[.size] as? Int) ?? 0
    }

    /// 3,000 commits of a 4 KB change each write some 12,000 WAL pages (49 MB) with no pause
    /// between them. The WAL stays near its restart size, the checkpointer did the copying,
    /// and every change is there after reopening.
    @Test func theWALStartsOverUnderContinuousCommits() throws {
        let payload = [UInt8](repeating: UInt8(ascii: "a"), count: 4096)
        let commits = 3000
        do {
            let store = try SQLiteStore(directory: directory.path, durability: .normal)
            defer { store.close() }
            try store.createDocument(Fixture.document("d"))
            for revision in 1...commits {
                try store.appendAndWait([StoredChange(documentID: "d", revision: revision, payload: payload)])
            }
            let statistics = store.statistics
            #expect(statistics.checkpoints > 0)
            #expect(statistics.writerCheckpoints > 0)
            // Restarts at 4,096 frames (17 MB with their headers), plus what the pass under way
            // left; never the 49 MB written.
            let size = walSize(store)
            #expect(size < 30 << 20, "WAL of \(size) bytes")
        }
        let reopened = try SQLiteStore(directory: directory.path, durability: .normal)
        defer { reopened.close() }
        let tail = try reopened.changes(document: "d", after: 0, through: nil)
        #expect(tail.count == commits)
        #expect(tail.last?.payload == payload)
    }

    /// A quiet store is checkpointed within the idle interval, and the writer finishes the pass.
    @Test func aQuietStoreIsCheckpointed() throws {
        let store = try SQLiteStore(directory: directory.path, durability: .full)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        for revision in 1...3 { try store.appendAndWait([Fixture.change("d", revision)]) }
        let deadline = Date().addingTimeInterval(5)
        while store.statistics.writerCheckpoints == 0 && Date() < deadline { usleep(50_000) }
        #expect(store.statistics.checkpoints >= 1)
        #expect(store.statistics.writerCheckpoints >= 1)
    }

    /// The writer never checkpoints by itself: SQLite's automatic checkpoint is off on it.
    @Test func theWriterHasNoAutomaticCheckpoint() throws {
        let store = try SQLiteStore(directory: directory.path, durability: .full)
        defer { store.close() }
        let pages = try store.database.writeWithoutTransaction { db in
            try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint")
        }
        #expect(pages == 0)
    }
}
