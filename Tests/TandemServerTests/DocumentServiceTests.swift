import Dispatch
import Foundation
import Logging
import Synchronization
import Testing
import TandemCore
@testable import TandemServer
import TandemStore

/// `DocumentService` called directly, with typed requests, on the SQLite store and on the
/// in-memory one: every mutation is answered only once it is stored, a refused write changes
/// nothing, and what was answered reads back from the store.
@Suite struct DocumentServiceTests {
    /// A service on a fresh store, with a gate in front of the store's writes that tests
    /// close (hold) or set to refuse for the writes `Harness.matching` picks.
    final class Harness: Sendable {
        let context: ServerContext
        let gated: GatedStore
        let directory: String
        let matching = Matching()
        var service: DocumentService { context.service }

        init(inMemory: Bool) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-service-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let inner: any DocumentStore = inMemory ? InMemoryStore() : try SQLiteStore(directory: directory, durability: .normal)
            let matching = self.matching
            gated = GatedStore(inner) { writes in matching.predicate.withLock { $0 }(writes) }
            var configuration = ServerConfiguration()
            configuration.dataDirectory = directory
            context = ServerContext(configuration: configuration, store: gated, sessions: SessionRegistry(restoring: []),
                                    metrics: Metrics(), logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        }

        func hold(_ predicate: @escaping @Sendable ([StoreWrite]) -> Bool) {
            matching.predicate.withLock { $0 = predicate }
        }

        func close() {
            gated.inner.close()
            try? FileManager.default.removeItem(atPath: directory)
        }

        func session(_ name: String) -> Session { context.sessions.create(name: name, now: service.now()).0 }

        func create(_ id: String, text: String = "") throws -> DocumentHandle {
            _ = try answer { service.create(NewDocument(id: id, title: id, text: text), by: .anonymous, completion: $0) }.get()
            return try service.document(id)
        }

        func text(_ handle: DocumentHandle) -> String { service.info(handle, scope: .document).text.description }
    }

    final class Matching: Sendable {
        let predicate = Mutex<@Sendable ([StoreWrite]) -> Bool>({ _ in false })
    }

    /// Starts a service call and waits (on the test's thread) for its completion.
    static func answer<R: Sendable>(timeout: Double = 10, _ start: (@escaping DocumentService.Completion<R>) -> Void) -> Result<R, APIError> {
        let box = Mutex<Result<R, APIError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        start { result in
            box.withLock { $0 = result }
            done.signal()
        }
        guard done.wait(timeout: .now() + timeout) == .success else {
            return .failure(APIError(.internalServerError, "timeout", "no answer within \(timeout) s"))
        }
        return box.withLock { $0 }!
    }

    /// Starts a call whose store write `holding` picks and the store holds back; checks it is
    /// not answered while held (`meanwhile` checks more), then lets the write through and
    /// returns the answer.
    static func answerOnceReleased<R: Sendable>(_ h: Harness, holding: @escaping @Sendable ([StoreWrite]) -> Bool,
                                                _ start: (@escaping DocumentService.Completion<R>) -> Void,
                                                meanwhile: () -> Void = {}) -> Result<R, APIError> {
        h.hold(holding)
        h.gated.close(gate: true)
        let box = Mutex<Result<R, APIError>?>(nil)
        start { result in box.withLock { $0 = result } }
        let deadline = Date().addingTimeInterval(5)
        while h.gated.heldCount < 1 && Date() < deadline { usleep(1000) }
        #expect(h.gated.heldCount == 1)
        usleep(20_000)
        #expect(box.withLock { $0 } == nil, "answered before the store committed")
        meanwhile()
        h.gated.open()
        while box.withLock({ $0 }) == nil && Date() < deadline { usleep(1000) }
        return box.withLock { $0 } ?? .failure(APIError(.internalServerError, "timeout", "no answer"))
    }

    static func isAppend(_ writes: [StoreWrite]) -> Bool {
        writes.contains { if case .append = $0 { true } else { false } }
    }

    static func isMeta(_ writes: [StoreWrite]) -> Bool {
        writes.contains { if case .setMeta = $0 { true } else { false } }
    }

    @Test(arguments: [false, true])
    func anEditIsAnsweredOnlyOnceStoredAndThenReadsBackFromTheStore(inMemory: Bool) throws {
        let h = try Harness(inMemory: inMemory)
        defer { h.close() }
        let doc = try h.create("d")
        let ada = h.session("Ada")
        let edit = EditRequest(base: nil, options: EditOptions(), form: .insert("hello", at: 0))
        let result = try Self.answerOnceReleased(h, holding: Self.isAppend, { h.service.edit(edit, in: doc, by: ada, completion: $0) }) {
            #expect(h.service.info(doc, scope: .document).revision == 0, "readers saw an uncommitted change")
        }.get()
        #expect(result.revision == 1)
        #expect(result.selection == Selection(caret: 5))
        #expect(h.text(doc) == "hello")
        #expect(try h.gated.inner.changes(document: "d", after: 0, through: nil).map(\.revision) == [1])
    }

    @Test(arguments: [false, true])
    func aRefusedChangeIsA503AndLeavesTheDocumentAsStored(inMemory: Bool) throws {
        let h = try Harness(inMemory: inMemory)
        defer { h.close() }
        let doc = try h.create("d", text: "kept")
        h.hold(Self.isAppend)
        h.gated.refuse(with: .full)
        let edit = EditRequest(base: nil, options: EditOptions(), form: .insert("lost", at: 0))
        let result = Self.answer { h.service.edit(edit, in: doc, by: nil, completion: $0) }
        #expect(result.failure == .storageFailing)
        #expect(h.text(doc) == "kept")
        #expect(h.service.info(doc, scope: .document).revision == 0)
        #expect(try h.gated.inner.changes(document: "d", after: 0, through: nil).isEmpty)
        // Refusing until the store recovers: nothing is applied meanwhile.
        #expect(Self.answer { h.service.edit(edit, in: doc, by: nil, completion: $0) }.failure == .storageFailing)
    }

    @Test(arguments: [false, true])
    func undoRevertsOnlyTheCallersGroupAndSaysWhichWhileOthersKeepTyping(inMemory: Bool) throws {
        let h = try Harness(inMemory: inMemory)
        defer { h.close() }
        let doc = try h.create("d")
        let ada = h.session("Ada"), bob = h.session("Bob")
        let first = EditRequest(base: nil, options: EditOptions(actionName: "Greet", newGroup: true), form: .insert("hello ", at: 0))
        _ = try Self.answer { h.service.edit(first, in: doc, by: ada, completion: $0) }.get()
        let second = EditRequest(base: nil, options: EditOptions(actionName: "Sign", newGroup: true), form: .insert("-- Bob", at: 6))
        _ = try Self.answer { h.service.edit(second, in: doc, by: bob, completion: $0) }.get()

        let undo = UndoRequest(.undo, scope: .session(ada.id), requester: ada.id, time: 0)
        let result = try Self.answer { h.service.perform(undo, in: doc, by: ada, completion: $0) }.get()
        #expect(h.text(doc) == "-- Bob")
        #expect(result.change.kind == .undo)
        #expect(result.change.actionName == "Greet")
        #expect(result.change.session == ada.id)
        #expect(result.change.reverts?.session == ada.id)
        #expect(!result.history.canUndo && result.history.canRedo)
        #expect(result.history.redoActionName == "Greet")
        #expect(h.service.history(scope: .session(bob.id), in: doc).undoActionName == "Sign")

        let redo = UndoRequest(.redo, scope: .session(ada.id), requester: ada.id, time: 0)
        _ = try Self.answer { h.service.perform(redo, in: doc, by: ada, completion: $0) }.get()
        #expect(h.text(doc) == "hello -- Bob")
        let nothing = Self.answer { h.service.perform(redo, in: doc, by: ada, completion: $0) }
        #expect(nothing.failure?.code == "nothing_to_redo")
        #expect(try h.gated.inner.changes(document: "d", after: 0, through: nil).count == 4)
    }

    @Test(arguments: [false, true])
    func undoStateIsStoredBeforeItIsAnsweredAndARefusalUndoesIt(inMemory: Bool) throws {
        let h = try Harness(inMemory: inMemory)
        defer { h.close() }
        let doc = try h.create("d")
        let ada = h.session("Ada")
        let level = Self.answerOnceReleased(h, holding: Self.isMeta, { h.service.grouping(begin: true, in: doc, by: ada, completion: $0) })
        #expect(try level.get() == 1)
        #expect(try h.gated.inner.meta(DocumentPersistence.pendingKey("d")) != nil)

        h.gated.refuse(with: .full)
        let named = Self.answer { h.service.updateHistory(HistoryPatch(actionName: nil, levelsOfUndo: 3), scope: .session(ada.id), in: doc, completion: $0) }
        #expect(named.failure == .storageFailing)
        // Back as stored: the open group is still there, the cap never happened.
        #expect(h.service.history(scope: .session(ada.id), in: doc).levelsOfUndo == 0)
    }

    @Test(arguments: [false, true])
    func createUpdateAndDeleteAreStoredThenSeen(inMemory: Bool) throws {
        let h = try Harness(inMemory: inMemory)
        defer { h.close() }
        let doc = try h.create("d", text: "abc")
        #expect(Self.answer { h.service.create(NewDocument(id: "d", title: "again", text: ""), by: .anonymous, completion: $0) }.failure?.code == "id_taken")

        let patch = DocumentPatch(title: "Renamed", editingDisabled: true, secure: nil, levels: 5)
        let info = try Self.answer { h.service.update(doc, with: patch, by: .anonymous, completion: $0) }.get()
        #expect(info.title == "Renamed" && info.editingDisabled && info.levelsOfUndo == 5)
        #expect(try h.gated.inner.document("d")?.title == "Renamed")
        let refused = Self.answer { h.service.edit(EditRequest(base: nil, options: EditOptions(), form: .insert("x", at: 0)), in: doc, by: nil, completion: $0) }
        #expect(refused.failure?.code == "editing_disabled")

        _ = try Self.answer { h.service.delete(doc, completion: $0) }.get()
        #expect(throws: APIError.self) { try h.service.document("d") }
        #expect(try h.gated.inner.document("d") == nil)
    }

    @Test(arguments: [false, true])
    func aSaveStoresTheCommittedTextAsAVersionAndClearsTheChangeCount(inMemory: Bool) throws {
        let h = try Harness(inMemory: inMemory)
        defer { h.close() }
        let doc = try h.create("d")
        _ = try Self.answer { h.service.edit(EditRequest(base: nil, options: EditOptions(), form: .insert("draft", at: 0)), in: doc, by: nil, completion: $0) }.get()
        #expect(h.service.info(doc, scope: .document).hasUnsavedChanges)
        let version = try Self.answer { h.service.save(doc, SaveRequest(name: "first"), then: $0) }.get()
        #expect(version.number == 1 && version.revision == 1 && version.text == "draft")
        #expect(!h.service.info(doc, scope: .document).hasUnsavedChanges)
        #expect(try h.service.versions(of: doc).map(\.number) == [1])

        let replacement = TextReplacement(text: "final", actionName: "Replace", ifMatch: { $0 == "\"1\"" }, ifMatchText: "\"1\"")
        _ = try Self.answer { h.service.replaceText(replacement, in: doc, by: nil, completion: $0) }.get()
        #expect(h.text(doc) == "final")
        let stale = Self.answer { h.service.replaceText(replacement, in: doc, by: nil, completion: $0) }
        #expect(stale.failure?.code == "precondition_failed")
        let revert = TextReplacement(text: version.text, actionName: "Revert to Version", ifMatch: nil)
        _ = try Self.answer { h.service.replaceText(revert, in: doc, by: nil, completion: $0) }.get()
        #expect(h.text(doc) == "draft")
    }

    /// Autosave's checkpoints collapse into one while they stand for less than the span; a save
    /// made on purpose is never replaced and starts a new span. Each version keeps who wrote it.
    @Test(arguments: [false, true])
    func automaticCheckpointsCollapseAndNamedSavesStay(inMemory: Bool) throws {
        let h = try Harness(inMemory: inMemory)
        defer { h.close() }
        let doc = try h.create("d")
        let ada = h.session("Ada")
        func type(_ text: String) throws {
            _ = try Self.answer { h.service.edit(EditRequest(base: nil, options: EditOptions(), form: .insert(text, at: h.text(doc).utf16.count)), in: doc, by: ada, completion: $0) }.get()
        }
        try type("a")
        let first = try Self.answer { h.service.save(doc, SaveRequest(automatic: true), then: $0) }.get()
        #expect(first.number == 1 && first.automatic && first.since == first.time)
        try type("b")
        let second = try Self.answer { h.service.save(doc, SaveRequest(automatic: true), then: $0) }.get()
        #expect(second.number == 2 && second.automatic && second.since == first.since && second.text == "ab")
        #expect(try h.service.versions(of: doc).map(\.number) == [2])
        try type("c")
        let named = try Self.answer { h.service.save(doc, SaveRequest(name: "Draft"), then: $0) }.get()
        #expect(named.number == 3 && !named.automatic && named.since == nil && named.name == "Draft")
        try type("d")
        let after = try Self.answer { h.service.save(doc, SaveRequest(automatic: true), then: $0) }.get()
        #expect(after.number == 4 && after.since == after.time)
        // The ledger kept in memory is what the store says.
        let known = doc.versions.withLock { $0 }, inStore = try h.gated.inner.versionLedger(document: "d")
        #expect(known == inStore, "\(String(describing: known)) against \(inStore)")
        let versions = try h.service.versions(of: doc)
        #expect(versions.map(\.number) == [2, 3, 4] && versions.map(\.automatic) == [true, false, true])
        // Each keeps the authors of its text.
        #expect(versions.map(\.length) == [2, 3, 4])
        let stored = try #require(try h.service.version(4, of: doc).authorship.flatMap(Authorship.Run.decode))
        #expect(stored == [Authorship.Run(from: 0, to: 4, author: ada.id)])
    }

    @Test func aCheckpointReplacesOnlyAnAutomaticOneWithinTheSpan() {
        let span = SaveRequest.checkpointSpan
        let automatic = SaveRequest(automatic: true), named = SaveRequest(name: "x")
        let recent = VersionLedger.Entry(number: 4, automatic: true, since: 1000)
        #expect(automatic.replaces(recent, at: 1000 + span - 1))
        #expect(!automatic.replaces(recent, at: 1000 + span))
        #expect(!named.replaces(recent, at: 1001))
        #expect(!SaveRequest().replaces(recent, at: 1001))
        #expect(!automatic.replaces(VersionLedger.Entry(number: 4), at: 1001))
        #expect(!automatic.replaces(VersionLedger.Entry(number: 4, automatic: true, since: nil), at: 1001))
        #expect(!automatic.replaces(nil, at: 1001))
    }

    /// Within the budget a save drops the oldest checkpoints, never a save made on purpose,
    /// and is refused when dropping them is not enough.
    @Test func aSaveMakesRoomFromTheOldestCheckpointsAndIsRefusedPastThem() throws {
        let ledger = VersionLedger([
            .init(number: 1, bytes: 300), .init(number: 2, automatic: true, since: 10, bytes: 200),
            .init(number: 3, bytes: 100), .init(number: 4, automatic: true, since: 20, bytes: 250),
            .init(number: 5, automatic: true, since: 2000, bytes: 150),
        ])
        #expect(ledger.bytes == 1000 && ledger.newest?.number == 5)
        let automatic = SaveRequest(automatic: true), named = SaveRequest(name: "n")
        // Room enough: nothing dropped; a checkpoint in the span replaces the newest.
        #expect(try named.plan(ledger, bytes: 100, at: 2100, budget: 1100) == SavePlan(replaced: nil, dropped: [], since: nil))
        #expect(try automatic.plan(ledger, bytes: 200, at: 2100, budget: 1050) == SavePlan(replaced: 5, dropped: [], since: 2000))
        // Past it: the oldest checkpoints go, in order, as many as it takes.
        #expect(try named.plan(ledger, bytes: 300, at: 2100, budget: 1100) == SavePlan(replaced: nil, dropped: [2], since: nil))
        #expect(try named.plan(ledger, bytes: 500, at: 2100, budget: 1100) == SavePlan(replaced: nil, dropped: [2, 4], since: nil))
        #expect(try automatic.plan(ledger, bytes: 600, at: 2100, budget: 1100) == SavePlan(replaced: 5, dropped: [2, 4], since: 2000))
        #expect(try automatic.plan(ledger, bytes: 100, at: 9000, budget: 1000) == SavePlan(replaced: nil, dropped: [2], since: 9000))
        // Saves made on purpose are never dropped: past every checkpoint, refused.
        #expect(throws: APIError.self) { try named.plan(ledger, bytes: 701, at: 2100, budget: 1100) }
        let refused = Result { () throws(APIError) in try automatic.plan(ledger, bytes: 701, at: 9000, budget: 1100) }
        #expect(refused.failure?.code == "versions_full" && refused.failure?.status == .insufficientStorage)
        // So is a count past the most versions a document keeps, whatever they hold.
        #expect(try named.plan(ledger, bytes: 1, at: 2100, budget: 1 << 20, maxCount: 5) == SavePlan(replaced: nil, dropped: [2], since: nil))
        #expect(try automatic.plan(ledger, bytes: 1, at: 2100, budget: 1 << 20, maxCount: 5) == SavePlan(replaced: 5, dropped: [], since: 2000))
        #expect(try named.plan(ledger, bytes: 1, at: 2100, budget: 1 << 20, maxCount: 3) == SavePlan(replaced: nil, dropped: [2, 4, 5], since: nil))
        #expect(throws: APIError.self) { try named.plan(ledger, bytes: 1, at: 2100, budget: 1 << 20, maxCount: 2) }
    }

    @Test(arguments: [false, true])
    func deleteAndPasteActOnTheSessionsSelection(inMemory: Bool) throws {
        let h = try Harness(inMemory: inMemory)
        defer { h.close() }
        let doc = try h.create("d", text: "hello world")
        let ada = h.session("Ada")
        let selected = try h.service.select(all: false, 5..<11, in: doc, by: ada)
        #expect(selected.selection == Selection(anchor: 5, head: 11))
        let delete = ActionRequest(range: nil, pasteboard: Pasteboard.generalName, type: nil)
        let deleted = try Self.answer { h.service.delete(delete, in: doc, by: ada, completion: $0) }.get()
        #expect(deleted.actionName == "Delete" && deleted.selection == Selection(caret: 5))
        #expect(h.text(doc) == "hello")
        #expect(h.service.history(scope: .session(ada.id), in: doc).undoActionName == "Delete")
        // Nothing on the general pasteboard yet: a paste is refused and changes nothing.
        let paste = Self.answer { h.service.paste(delete, in: doc, by: ada, completion: $0) }
        #expect(paste.failure?.code == "nothing_to_paste")
        #expect(h.text(doc) == "hello")
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
