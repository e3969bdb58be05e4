import Foundation
import Synchronization
import Testing
@testable import TandemServer
import TandemStore

/// No event loop waits for the store: while a create and a save sit stuck in it (held back on
/// purpose), the one event loop still answers `/healthz` and edits of another document at once.
@Suite struct StuckStoreTests {
    static func isCreateOrSave(_ writes: [StoreWrite]) -> Bool {
        writes.contains { w in
            switch w {
            case .createDocument, .addVersion: true
            default: false
            }
        }
    }

    /// Run on the SQLite store and on the in-memory one: the server relies on the contract
    /// they share, not on either.
    @Test(arguments: [false, true])
    func theEventLoopAnswersWhileACreateAndASaveAreStuckInTheStore(inMemory: Bool) throws {
        let gated = Mutex<GatedStore?>(nil)
        let server = try TestServer(wrappingStore: { inner in
            let store = GatedStore(inMemory ? InMemoryStore() : inner, holds: StuckStoreTests.isCreateOrSave)
            gated.withLock { $0 = store }
            return store
        })
        defer { server.stopAndRemove() }
        let store = try #require(gated.withLock { $0 })
        let client = server.client
        #expect(try client.send("POST", "/documents", json: #"{"id": "stuck"}"#).status == 201)
        #expect(try client.send("POST", "/documents", json: #"{"id": "free"}"#).status == 201)

        store.close(gate: true)
        let answers = Mutex<[String: Int]>([:])
        let port = server.port
        let create = Thread {
            let status = (try? TestClient(port: port).send("POST", "/documents", json: #"{"id": "new"}"#).status) ?? -1
            answers.withLock { $0["create"] = status }
        }
        let save = Thread {
            let status = (try? TestClient(port: port).send("POST", "/documents/stuck/save").status) ?? -1
            answers.withLock { $0["save"] = status }
        }
        create.start()
        save.start()
        let deadline = Date().addingTimeInterval(10)
        while store.heldCount < 2 && Date() < deadline { usleep(1000) }
        #expect(store.heldCount == 2)

        var times: [Double] = []
        for i in 0..<30 {
            let start = DispatchTime.now().uptimeNanoseconds
            let reply = i % 3 == 0
                ? try client.send("POST", "/documents/free/edits", json: #"{"insert": "x", "at": 0}"#)
                : try client.send("GET", "/healthz")
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            #expect(reply.status == 200)
        }
        // Still stuck, and still unanswered: what answered meanwhile did not wait for them.
        #expect(store.heldCount == 2 && answers.withLock { $0.isEmpty })
        times.sort()
        #expect(times[times.count / 2] < 10, "median \(times[times.count / 2]) ms")
        #expect(times.last! < 100, "slowest \(times.last!) ms")

        store.open()
        let released = Date().addingTimeInterval(10)
        while answers.withLock({ $0.count }) < 2 && Date() < released { usleep(1000) }
        #expect(answers.withLock { $0 } == ["create": 201, "save": 201])
        #expect(try client.send("GET", "/documents/new").status == 200)
        #expect(try client.send("GET", "/documents/free/text").text == String(repeating: "x", count: 10))
    }
}
