import Foundation
import Testing
import TandemStore

/// Real failing disks: a 1 MiB tmpfs filled up, and a read-only one.
@Suite(.serialized, .enabled(if: TmpfsMount.available, "needs root to mount a tmpfs; failure tests skipped"))
struct FailureTests {
    let directory = TemporaryDirectory()

    init() throws {
        try #require(TmpfsMount.mount(directory.path, options: "size=1m"))
    }

    /// Unmounting in `deinit` is not available to a struct; each test unmounts itself.
    func unmount() {
        TmpfsMount.unmount(directory.path)
    }

    @Test func diskFullFailsAppendsThenRecoversByItself() throws {
        defer { unmount() }
        let data = directory.path + "/data"
        let filler = directory.path + "/filler"
        let payload = [UInt8](repeating: 0xC3, count: 16 * 1024)
        var stored = 0
        do {
            let store = try SQLiteStore(directory: data, durability: .full)
            defer { store.close() }
            try store.createDocument(Fixture.document("d"))
            #expect(TmpfsMount.fill(filler) > 0)

            var failure: (any Error)?
            for _ in 0..<200 {
                do {
                    try store.appendAndWait([StoredChange(documentID: "d", revision: stored + 1, payload: payload)])
                    stored += 1
                } catch {
                    failure = error
                    break
                }
            }
            #expect(failure as? StoreError == .full, "got \(String(describing: failure))")
            #expect(store.statistics.failedTransactions >= 1)
            // Still full: it keeps failing, and never claims what it did not store.
            #expect(throws: StoreError.full) {
                try store.appendAndWait([StoredChange(documentID: "d", revision: stored + 1, payload: payload)])
            }
            #expect(try store.lastRevision(document: "d") == stored)
            #expect(try store.changes(document: "d", after: 0).count == stored)

            // Space comes back: the very next append works, no reopening.
            try FileManager.default.removeItem(atPath: filler)
            for _ in 0..<3 {
                try store.appendAndWait([StoredChange(documentID: "d", revision: stored + 1, payload: payload)])
                stored += 1
            }
        }
        let reopened = try SQLiteStore(directory: data)
        defer { reopened.close() }
        let changes = try reopened.changes(document: "d", after: 0)
        #expect(changes.map(\.revision) == Array(1...stored))
        #expect(changes.allSatisfy { $0.payload == payload })
    }

    /// `health` follows the last commit: ok through a conflict (the store still writes),
    /// failing from the first write a full disk refuses, with the time of that first one,
    /// and ok again from the first write that commits once there is room.
    @Test func healthIsFailingFromARefusedWriteUntilOneCommits() throws {
        defer { unmount() }
        let filler = directory.path + "/filler"
        let store = try SQLiteStore(directory: directory.path + "/data", durability: .full)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        #expect(throws: StoreError.self) { try store.createDocument(Fixture.document("d")) }
        #expect(store.health == .ok)

        #expect(TmpfsMount.fill(filler) > 0)
        let payload = [UInt8](repeating: 0x5A, count: 16 * 1024)
        var refused: StoreError?
        for _ in 0..<200 where refused == nil {
            do { try store.setMeta("ballast", payload) } catch { refused = error }
        }
        #expect(refused == .full)
        guard case .failing(.full, let since) = store.health else {
            Issue.record("health is \(store.health) after a refused write")
            return
        }
        #expect(throws: StoreError.full) { try store.setMeta("probe", [1]) }
        #expect(store.health == .failing(.full, since: since), "a later failure moved the start of the failure")

        try FileManager.default.removeItem(atPath: filler)
        try store.setMeta("probe", [1])
        #expect(store.health == .ok)
    }

    @Test func readOnlyDirectoryIsReportedAndRecoveredFrom() throws {
        defer { unmount() }
        let data = directory.path + "/data"
        do {
            let store = try SQLiteStore(directory: data)
            try store.createDocument(Fixture.document("d"))
            try store.appendAndWait([Fixture.change("d", 1)])
            store.close()
        }
        // Linux refuses to remount read-only while a file is open for writing, so the store is
        // closed first and meets the read-only disk when it opens.
        try #require(TmpfsMount.remount(directory.path, options: "ro"))
        var failure: (any Error)?
        do {
            let store = try SQLiteStore(directory: data)
            defer { store.close() }
            try store.appendAndWait([Fixture.change("d", 2)])
        } catch {
            failure = error
        }
        #expect(failure as? StoreError == .readOnly, "got \(String(describing: failure))")

        try #require(TmpfsMount.remount(directory.path, options: "rw"))
        let store = try SQLiteStore(directory: data)
        defer { store.close() }
        #expect(try store.lastRevision(document: "d") == 1)
        try store.appendAndWait([Fixture.change("d", 2)])
    }
}
