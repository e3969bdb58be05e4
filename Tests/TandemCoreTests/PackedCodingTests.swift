import Foundation
import Testing
@testable import TandemCore
import TandemTestSupport

@Suite struct PackedCodingTests {
    @Test func base64MatchesFoundationForEveryLengthAndByte() throws {
        var rng = SplitMix64(seed: 7)
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let encoded = Base64.encode(bytes)
            #expect(encoded == Data(bytes).base64EncodedString())
            #expect(Base64.decode(encoded) == bytes)
        }
        for bad in ["A", "AB=C", "A===", "ab$d", "abc=defg", "===="] { #expect(Base64.decode(bad) == nil, "\(bad)") }
    }

    /// Snapshots stored before the packed form (every number a JSON number) still load,
    /// and give the same document as the packed form of the same state.
    @Test func snapshotsInTheOlderUnpackedFormStillDecode() throws {
        let doc = Document(text: "hello")
        try doc.apply(.insert(" world", at: 5, length: 5), session: "a", time: 1)
        try doc.apply(.delete(from: 0, to: 1, length: 11), session: "b", options: EditOptions(actionName: "Cut"), time: 2)
        try doc.undo(scope: .session("a"), time: 3)
        let packed = try JSONEncoder().encode(doc.snapshot())
        let object = try #require(JSONSerialization.jsonObject(with: packed) as? [String: Any])
        #expect((object["log"] as? [String: Any])?["group"] is String)
        #expect((object["log"] as? [String: Any])?["context"] is String)
        #expect((object["undo"] as? [String: Any])?["groups"] is String)
        let contexts = try #require((object["undo"] as? [String: Any])?["chains"] as? [[String: Any]])
        #expect(contexts.allSatisfy { $0["undo"] is String && $0["redo"] is String })

        // The same state as the synthesized Codable wrote it, with the one `owner` column
        // snapshots had before `group` and `context`: a group id, or -(context + 1).
        let s = doc.snapshot()
        var legacy = object
        var log = try #require(object["log"] as? [String: Any])
        log["spliceEnd"] = s.log.spliceEnd.map(Int.init); log["textStart"] = s.log.textStart.map(Int.init)
        log["group"] = nil; log["context"] = nil
        log["owner"] = zip(s.log.group, s.log.context).map { $0 == ChangeLog.noGroup ? -Int($1) - 1 : Int($0) }
        log["kind"] = s.log.kind.map(Int.init)
        log["time"] = s.log.time; log["lengthAfter"] = s.log.lengthAfter.map(Int.init)
        log["splicePosition"] = s.log.splicePosition.map(Int.init); log["spliceDeleted"] = s.log.spliceDeleted.map(Int.init)
        log["spliceInserted"] = s.log.spliceInserted.map(Int.init); log["text"] = s.log.text.map(Int.init)
        legacy["log"] = log
        var undo = try #require(object["undo"] as? [String: Any])
        undo["groups"] = s.undo.groups.map {
            ["chain": Int($0.context), "first": Int($0.first), "last": Int($0.last), "name": Int($0.name), "flags": Int($0.flags)]
        }
        undo["chains"] = zip(contexts, s.undo.contexts).map { object, context in
            var c = object
            c["undo"] = context.undo.map(Int.init); c["redo"] = context.redo.map(Int.init)
            return c
        }
        legacy["undo"] = undo
        let legacyData = try JSONSerialization.data(withJSONObject: legacy)

        #expect(doc.text == "ello")
        for data in [packed, legacyData] {
            let restored = try Document(snapshot: JSONDecoder().decode(DocumentSnapshot.self, from: data))
            #expect(restored.text == doc.text)
            #expect(restored.revision == doc.revision)
            #expect(try restored.changes(since: 0).map(\.operation) == doc.changes(since: 0).map(\.operation))
            #expect(try restored.changes(since: 0).map(\.actionName) == doc.changes(since: 0).map(\.actionName))
            try restored.redo(scope: .session("a"), time: 4)
            #expect(restored.text == "ello world")
            try restored.undo(scope: .session("b"), time: 5)
            #expect(restored.text == "hello world")
        }
    }

    @Test(arguments: ["group", "context", "owner"])
    func aTruncatedPackedColumnIsAnError(_ column: String) throws {
        var object = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(Document(text: "x").snapshot())) as? [String: Any])
        var log = try #require(object["log"] as? [String: Any])
        log[column] = "AAA="  // 2 bytes: not a whole Int32
        object["log"] = log
        let data = try JSONSerialization.data(withJSONObject: object)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(DocumentSnapshot.self, from: data) }
    }

    /// An older snapshot's owner that names no undo group is damage, refused as it loads.
    @Test func anOwnerNamingNoGroupIsAnError() throws {
        let doc = Document(text: "x")
        try doc.apply(.insert("y", at: 1, length: 1), session: "a", time: 1)
        var object = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(doc.snapshot())) as? [String: Any])
        var log = try #require(object["log"] as? [String: Any])
        log["group"] = nil; log["context"] = nil
        log["owner"] = [7]
        object["log"] = log
        let data = try JSONSerialization.data(withJSONObject: object)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(DocumentSnapshot.self, from: data) }
    }
}
