import Foundation
import TandemCore
import TandemHTTP
import Testing
@testable import TandemServer

/// Snapshots are stored gzipped; plain JSON ones, as earlier servers stored them, still read.
@Suite struct SnapshotCodecTests {
    /// A document with a history, as a busy one has: typing in words, an undo, a redo.
    static func document() throws -> Document {
        let doc = Document(text: "")
        for i in 0..<2_000 {
            let op = try TextOperation(splices: [.init(position: i, deleted: 0, inserted: i % 7 == 0 ? " " : "x")], baseLength: i)
            try doc.apply(op, session: "s\(i % 3)", options: .init(newGroup: i % 20 == 0), time: 1_800_000_000 + Double(i) / 10)
        }
        try doc.undo(scope: .session("s1"), time: 1_800_000_300)
        try doc.redo(scope: .session("s1"), time: 1_800_000_301)
        return doc
    }

    @Test func roundTripsGzipped() throws {
        let doc = try Self.document()
        let bytes = SnapshotCodec.encode(doc.snapshot())
        #expect(bytes.starts(with: [0x1F, 0x8B]))
        let json = try JSONEncoder().encode(doc.snapshot())
        #expect(bytes.count * 3 < json.count, "gzipped \(bytes.count) bytes against \(json.count) of JSON")
        let restored = try Document(snapshot: SnapshotCodec.decode(bytes))
        #expect(restored.text == doc.text && restored.revision == doc.revision)
        #expect(restored.undoManager.history(.document) == doc.undoManager.history(.document))
    }

    @Test func readsPlainJSONAsEarlierServersStoredIt() throws {
        let doc = try Self.document()
        let restored = try Document(snapshot: SnapshotCodec.decode(Array(JSONEncoder().encode(doc.snapshot()))))
        #expect(restored.text == doc.text && restored.revision == doc.revision)
    }

    @Test func damagedGzipIsAnError() throws {
        var bytes = SnapshotCodec.encode(try Self.document().snapshot())
        bytes.removeLast(bytes.count / 2)
        #expect(throws: DecodingError.self) { try SnapshotCodec.decode(bytes) }
    }
}
