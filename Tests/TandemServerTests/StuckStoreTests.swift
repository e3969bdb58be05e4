import Foundation
import Synchronization
import Testing
@testable import TandemServer
import TandemStore

/// No event loop waits for the store: while writes sit stuck in it (held back on purpose),
/// the one event loop still answers `/healthz` and edits of another document at once.
@Suite struct StuckStoreTests {
    static func isCreateOrSave(_ writes: [StoreWrite]) -> Bool {
        writes.contains { w in
            switch w {
            case .createDocument, .addVersion: true
            default: false
            }
        }
    }

    /// A session's row or a persistent pasteboard: what a session create, a pasteboard write
    /// and a cut onto a persistent pasteboard store (an edit's append alone goes through).
    static func isSessionOrPasteboard(_ writes: [StoreWrite]) -> Bool {
        writes.contains { w in
            switch w {
            case .upsertSession, .upsertPasteboard: true
            default: false
            }
        }
    }

    /// Run on the SQLite store and on the in-memory one: the server relies on the contract
    /// they share, not on either.
    @Test(arguments: [false, true])
    func theEventLoopAnswersWhileACreateAndASaveAreStuckInTheStore(inMemory: Bool) throws {
        let (server, store) = try Self.start(inMemory: inMemory, holding: StuckStoreTests.isCreateOrSave)
        defer { server.stopAndRemove() }
        let client = server.client
        #expect(try client.send("POST", "/documents", json: #"{"id": "stuck"}"#).status == 201)
        #expect(try client.send("POST", "/documents", json: #"{"id": "free"}"#).status == 201)

        store.close(gate: true)
        let answers = Answers()
        Self.request("create", port: server.port, answers: answers) { try $0.send("POST", "/documents", json: #"{"id": "new"}"#) }
        Self.request("save", port: server.port, answers: answers) { try $0.send("POST", "/documents/stuck/save") }
        #expect(try Self.answersOnceReleased(store, held: 2, expecting: 2, answers: answers, client: client) == ["create": 201, "save": 201])
        #expect(try client.send("GET", "/documents/new").status == 200)
        #expect(try client.send("GET", "/documents/free/text").text == String(repeating: "x", count: 10))
    }

    /// The same for the writes that used to wait on a thread of their own: a session create
    /// and a cut stuck in the store, and a pasteboard write queued behind the cut (the
    /// pasteboards' writer runs one at a time, without holding a thread while it waits).
    @Test(arguments: [false, true])
    func theEventLoopAnswersWhileASessionCreateAPasteboardWriteAndACutAreStuck(inMemory: Bool) throws {
        let (server, store) = try Self.start(inMemory: inMemory, holding: StuckStoreTests.isSessionOrPasteboard)
        defer { server.stopAndRemove() }
        let client = server.client
        let owner = try client.session("owner")
        try client.document("cut", text: "abcdef")
        #expect(try client.send("POST", "/documents", json: #"{"id": "free"}"#).status == 201)
        #expect(try client.send("POST", "/pasteboards", token: owner.token, json: #"{"name": "keep", "persistent": true, "shared": "everyone"}"#).status == 201)

        store.close(gate: true)
        let answers = Answers()
        let port = server.port
        Self.request("cut", port: port, answers: answers) {
            try $0.send("POST", "/documents/cut/cut", json: #"{"from": 0, "to": 3, "pasteboard": "keep"}"#)
        }
        Self.waitUntil { store.heldCount == 1 }
        // Sent once the cut is stuck: it lands after the cut.
        Self.request("write", port: port, answers: answers) {
            try $0.send("PUT", "/pasteboards/keep/items", body: Array("later".utf8), contentType: "text/plain")
        }
        Self.request("session", port: port, answers: answers) { try $0.send("POST", "/sessions", json: #"{"name": "late"}"#) }
        #expect(try Self.answersOnceReleased(store, held: 2, expecting: 3, answers: answers, client: client) == ["cut": 200, "write": 200, "session": 201])
        #expect(try client.text("cut") == "def")
        #expect(try client.pasteboard("keep")["changeCount"]?.intValue == 2)
        #expect(try client.send("GET", "/pasteboards/keep/items/0").text == "later")
        #expect(try client.send("GET", "/documents/free/text").text == String(repeating: "x", count: 10))
    }

    /// Changes that left memory while their archive write is stuck are not reported gone:
    /// `GET …/edits` before them waits for the write, then lists them.
    @Test(arguments: [false, true])
    func changesWhoseArchiveWriteIsStillOnItsWayAreListedOnceItLands(inMemory: Bool) throws {
        let isArchive: @Sendable ([StoreWrite]) -> Bool = { writes in
            writes.contains { if case .archive = $0 { true } else { false } }
        }
        let (server, store) = try Self.start(inMemory: inMemory, holding: isArchive) { c in
            c.logKept = 2
            c.archiveBytes = 1 << 20
        }
        defer { server.stopAndRemove() }
        let client = server.client
        #expect(try client.send("POST", "/documents", json: #"{"id": "log"}"#).status == 201)
        store.close(gate: true)
        for _ in 0..<5 {
            #expect(try client.send("POST", "/documents/log/edits", json: #"{"insert": "x", "at": 0}"#).status == 200)
        }
        // The housekeeping tick (each second) keeps 2 changes in memory: 1...3 leave it.
        Self.waitUntil { store.heldCount == 1 }
        #expect(store.heldCount == 1)
        let answers = Answers()
        let listed = Mutex<[Int]>([])
        Self.request("edits", port: server.port, answers: answers) { client in
            let reply = try client.send("GET", "/documents/log/edits?since=0")
            listed.withLock { $0 = reply.json.arrayValue?.compactMap { $0["revision"]?.intValue } ?? [] }
            return reply
        }
        usleep(300_000)
        #expect(answers.all.isEmpty)
        store.open()
        Self.waitUntil { answers.all.count == 1 }
        #expect(answers.all == ["edits": 200])
        #expect(listed.withLock { $0 } == [1, 2, 3])
    }

    /// A test server whose store holds back the batches `holding` matches once its gate closes.
    static func start(inMemory: Bool, holding: @escaping @Sendable ([StoreWrite]) -> Bool,
                      configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> (TestServer, GatedStore) {
        let gated = Mutex<GatedStore?>(nil)
        let server = try TestServer(wrappingStore: { inner in
            let store = GatedStore(inMemory ? InMemoryStore() : inner, holds: holding)
            gated.withLock { $0 = store }
            return store
        }, configure: configure)
        guard let store = gated.withLock({ $0 }) else {
            server.stopAndRemove()
            throw TestFailure("the server did not wrap its store")
        }
        return (server, store)
    }

    /// The statuses of the requests sent on threads of their own, by name.
    final class Answers: Sendable {
        private let statuses = Mutex<[String: Int]>([:])
        var all: [String: Int] { statuses.withLock { $0 } }
        func note(_ name: String, _ status: Int) { statuses.withLock { $0[name] = status } }
    }

    /// Sends a request on a thread of its own and notes its status (-1: no answer) as `name`.
    static func request(_ name: String, port: Int, answers: Answers, _ send: @escaping @Sendable (TestClient) throws -> Reply) {
        Thread {
            answers.note(name, (try? send(TestClient(port: port)).status) ?? -1)
        }.start()
    }

    /// Polls `condition` for up to 10 s.
    static func waitUntil(_ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(10)
        while !condition() && Date() < deadline { usleep(1000) }
    }

    /// Waits until `held` requests are stuck in the store, checks the loop answers others
    /// at once while they (and any queued behind them) stay unanswered, then opens the store
    /// and returns the answers once `expecting` have come.
    static func answersOnceReleased(_ store: GatedStore, held: Int, expecting: Int, answers: Answers, client: TestClient) throws -> [String: Int] {
        waitUntil { store.heldCount == held }
        #expect(store.heldCount == held)
        try expectPromptAnswers(client)
        // Still stuck, and still unanswered: what answered meanwhile did not wait for them.
        #expect(store.heldCount == held && answers.all.isEmpty)
        store.open()
        waitUntil { answers.all.count == expecting }
        return answers.all
    }

    /// `/healthz` and edits of the document `free` (ten of them) answer at once, one by one.
    static func expectPromptAnswers(_ client: TestClient) throws {
        var times: [Double] = []
        for i in 0..<30 {
            let start = DispatchTime.now().uptimeNanoseconds
            let reply = i % 3 == 0
                ? try client.send("POST", "/documents/free/edits", json: #"{"insert": "x", "at": 0}"#)
                : try client.send("GET", "/healthz")
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            #expect(reply.status == 200)
        }
        times.sort()
        #expect(times[times.count / 2] < 10, "median \(times[times.count / 2]) ms")
        #expect(times.last! < 100, "slowest \(times.last!) ms")
    }
}
