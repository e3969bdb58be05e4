import Foundation
import TandemCore
import TandemHTTP
import Testing
@testable import TandemServer

/// Snapshots are stored in the binary form; gzipped and plain JSON ones, as earlier servers
/// stored them, still read.
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

    @Test func roundTripsBinary() throws {
        let doc = try Self.document()
        let bytes = SnapshotCodec.encode(doc.snapshot())
        #expect(DocumentSnapshot.isBinary(bytes))
        let restored = try Document(snapshot: SnapshotCodec.decode(bytes))
        #expect(restored.text == doc.text && restored.revision == doc.revision)
        #expect(restored.undoManager.history(.document) == doc.undoManager.history(.document))
    }

    @Test func readsGzippedJSONAsEarlierServersStoredIt() throws {
        let doc = try Self.document()
        let json = try Array(JSONEncoder().encode(doc.snapshot()))
        let restored = try Document(snapshot: SnapshotCodec.decode(try #require(Gzip.compress(json, level: 1))))
        #expect(restored.text == doc.text && restored.revision == doc.revision)
        #expect(restored.undoManager.history(.document) == doc.undoManager.history(.document))
    }

    @Test func readsPlainJSONAsEarlierServersStoredIt() throws {
        let doc = try Self.document()
        let restored = try Document(snapshot: SnapshotCodec.decode(Array(JSONEncoder().encode(doc.snapshot()))))
        #expect(restored.text == doc.text && restored.revision == doc.revision)
    }

    @Test func damagedSnapshotsAreErrors() throws {
        var bytes = SnapshotCodec.encode(try Self.document().snapshot())
        bytes.removeLast(bytes.count / 2)
        #expect(throws: SnapshotFormatError.self) { try SnapshotCodec.decode(bytes) }
        var gzipped = try #require(Gzip.compress(Array(JSONEncoder().encode(try Self.document().snapshot())), level: 1))
        gzipped.removeLast(gzipped.count / 2)
        #expect(throws: DecodingError.self) { try SnapshotCodec.decode(gzipped) }
    }
}
