import Foundation
import Testing
@testable import TandemCore

/// Inputs `scripts/fuzz.sh` found that a snapshot decoder took wrongly, minimized.
@Suite struct FuzzFindingsTests {
    /// A binary snapshot of `Document(text: "ab")` with the text's two bytes replaced: the
    /// decoder read invalid UTF-8 leniently, so a damaged text loaded with U+FFFD in it (and
    /// another UTF-16 length than the log's) instead of being refused (snapshot target).
    @Test(arguments: [[0xC3, 0x28], [0xFF, 0x61], [0xED, 0xA0], [0x61, 0x80]] as [[UInt8]])
    func binarySnapshotsWithInvalidUTF8AreDamaged(text: [UInt8]) throws {
        var bytes = Document(text: "ab").snapshot().binary()
        // Magic (4), revision and change count (8 each), editing disabled (1), text length (8).
        let at = 4 + 8 + 8 + 1 + 8
        #expect(Array(bytes[at..<at + 2]) == Array("ab".utf8))
        bytes.replaceSubrange(at..<at + 2, with: text)
        #expect(throws: SnapshotFormatError.self) { try DocumentSnapshot(binary: bytes) }
    }

    /// The same bytes with valid UTF-8 in that place still read, to the new text.
    @Test func aValidReplacementStillReads() throws {
        var bytes = Document(text: "ab").snapshot().binary()
        bytes.replaceSubrange(29..<31, with: Array("é".utf8))
        #expect(try DocumentSnapshot(binary: bytes).text == "é")
    }
}

/// A binary snapshot whose sessions' change counts (its last bytes, written in ascending
/// order of session) came out of order, or twice for one session: it loaded, and was written
/// back as other bytes, the order sorted and a repeated session's count lost (snapshot target).
@Suite struct FuzzFindingsChangeCountTests {
    @Test func sessionCountsOutOfOrderOrRepeatedAreDamaged() throws {
        let doc = Document(text: "")
        try doc.apply(.insert("x", at: 0, length: 0), session: "a", time: 1)
        try doc.apply(.insert("y", at: 1, length: 1), session: "b", time: 2)
        // Version 3's last bytes; version 4 reads them alike and then its unit identities.
        let bytes = doc.snapshot().binary(version: 3)
        #expect(try DocumentSnapshot(binary: bytes).binary(version: 3) == bytes)
        // Each entry: a one-byte session's length and byte, its count, savePointLost.
        let entry = 8 + 1 + 8 + 1
        let a = bytes[(bytes.count - 2 * entry)..<(bytes.count - entry)], b = bytes[(bytes.count - entry)...]
        #expect(a[a.startIndex + 8] == UInt8(ascii: "a") && b[b.startIndex + 8] == UInt8(ascii: "b"))
        let head = bytes[..<(bytes.count - 2 * entry)]
        for damaged in [Array(head + b + a), Array(head + a + a)] {
            #expect(throws: SnapshotFormatError.self) { try DocumentSnapshot(binary: damaged) }
        }
    }
}

/// Splices whose end lies past Int.max: checking them against the base length added position
/// and count and overflowed (journal target, through `JournalBinary` and stored inverses).
@Suite struct FuzzFindingsSpliceTests {
    @Test(arguments: [(Int.max, 65, 1904), (3, Int.max, 5), (Int.max, Int.max, Int.max), (Int.max - 1, 2, Int.max)])
    func splicesEndingPastIntMaxAreOutOfRange(position: Int, deleted: Int, baseLength: Int) {
        #expect(throws: OperationError.self) {
            try TextOperation(splices: [.init(position: position, deleted: deleted, inserted: "")], baseLength: baseLength)
        }
        var coding = OperationCoding(.identity(length: baseLength))
        coding.positions = [position]; coding.deleted = [deleted]; coding.inserted = [""]
        #expect(throws: OperationError.self) { try coding.operation() }
    }
}

/// Snapshots that decode but whose change-log columns do not line up: loading one trapped on
/// an index out of range (`ChangeLog.length(at:)`) instead of refusing it (snapshot target,
/// whose reproducer had a log of one change with no `lengthAfter`).
@Suite struct FuzzFindingsSnapshotLogTests {
    static let damages: [(String, @Sendable (inout ChangeLog.State) -> Void)] = [
        ("no lengthAfter", { $0.lengthAfter = [] }),
        ("a group too many", { $0.group.append(0) }),
        ("a context too many", { $0.context.append(0) }),
        ("splices past their columns", { $0.spliceEnd[0] += 5 }),
        ("text past the buffer", { $0.textStart[0] = UInt32($0.text.count) }),
        ("a negative deleted count", { $0.spliceDeleted[0] = -1 }),
        ("a trimmed count near Int.max", { $0.trimmed = Int.max }),
    ]

    @Test(arguments: damages.indices)
    func aSnapshotWithDamagedLogColumnsIsRefused(row: Int) throws {
        let document = Document(text: "ab")
        try document.apply(.insert("xyz", at: 1, length: 2), session: nil, time: 1)
        var snapshot = document.snapshot()
        #expect(throws: Never.self) { try Document(snapshot: snapshot) }
        Self.damages[row].1(&snapshot.log)
        #expect(throws: DocumentError.self, "\(Self.damages[row].0)") { try Document(snapshot: snapshot) }
    }
}

/// The fuzzer's JSON snapshot with more undo requesters than undo records: it decoded, and
/// its binary form then did not read back. One requester and one count per record, or damage.
@Suite struct FuzzFindingsUndoRecordTests {
    @Test(arguments: ["revertRequester", "revertLost"])
    func undoRecordColumnsOfAnotherLengthAreDamaged(column: String) throws {
        let doc = Document()
        try doc.apply(ins(doc, "a", at: 0), session: "ada", time: 0)
        try doc.perform(UndoRequest(.undo, scope: .document, requester: "bob", time: 1))
        var object = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(doc.snapshot())) as? [String: Any])
        var log = try #require(object["log"] as? [String: Any])
        log[column] = column == "revertRequester" ? ["bob", "eve"] as [Any] : log["spliceEnd"]!
        object["log"] = log
        let damaged = try JSONSerialization.data(withJSONObject: object)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(DocumentSnapshot.self, from: damaged) }
    }
}

/// A version 4 snapshot whose text's unit identities came as runs that continue each other
/// (1–3, 4–7, …): it loaded, the runs joined, and it was written back as other bytes
/// (snapshot target). Such runs are damage now, as stored runs are always joined.
@Suite struct FuzzFindingsUnitRunsTests {
    static let found = [
        "VERTBAcAAAAAAAAABAAAAAAAAAAAEgAAAAAAAABHZGJ5ZSB3w7ZybGQg8J+YgCEAAAAAAgAAAAAAAAAAAAAABwAAAAAAAAABAAAA",
        "AgAAAAMAAAAEAAAABQAAAAYAAAAHAAAABwAAAAAAAAAAAAAABQAAAA4AAAAPAAAAGwAAACcAAAAzAAAABwAAAAAAAAAAAAAAAAAA",
        "AAEAAAACAAAAAwAAAAQAAAD/////BwAAAAAAAAABAAAAAQAAAAIAAAACAAAAAgAAAAIAAAAAAAAABwAAAAAAAAAAAAAAAQIABwAA",
        "AAAAAAAAADBADs/ZQQAAUEAOz9lBAABwQA7P2UEAAJBADs/ZQQAA0EAOz9lBAAAQQQ7P2UEAADBBDs/ZQQcAAAAAAAAABQAAAA4A",
        "AAAPAAAAEQAAAA8AAAARAAAADwAAAAcAAAAAAAAAAAAAAAUAAAAOAAAAAAAAAAAAAAAAAAAAAQAAAAcAAAAAAAAAAAAAAAAAAAAA",
        "AAAABQAAAAcAAAAFAAAAAgAAAAcAAAAAAAAABQAAAAkAAAABAAAABwAAAAUAAAAHAAAAAAAAADUAAAAAAAAASABlAGwAbABvACAA",
        "dwD2AHIAbABkACAAPdgA3iEASABlAGwAbABvAEcAbwBvAGQAYgB5AGUARwBvAG8AZABiAHkAZQBIAGUAbABsAG8ASABlAGwAbABv",
        "AEcAbwBvAGQAYgB5AGUAbwBvAAUAAAAAAAAAAQAAAAEAAAACAAAAAAAAAAYCAAAAAwAAAAMAAAAAAAAABgIAAAAEAAAABAAAAAEA",
        "AAAAAgAAAAUAAAAFAAAAAQAAAAACAAAABgAAAAYAAAABAAAAAgMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAA//////////8AAAAAAAAAAAAAAAAAAQcAAAAAAAAAc19hbGljZQEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AP//////////AAAAABQAAAAAAAAAAQAAAAAAAAAAAAAAAAAOAAAAAAAAAAAAUEAOz9lBAgAAAAAAAAABBQAAAAAAAABzX2JvYgIA",
        "AAAAAAAAAQAAAAQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAD//////////wAAAAAAAAAAAAAAAAACAAAAAAAAAAYAAAAAAAAA",
        "VHlwaW5nBwAAAAAAAABSZXBsYWNlAQAAAAAAAAABAAAADwAAAAAAAAABAAAAAAAAAA4AAAAAAAAAAQAAAAAAAAAAAAAAAAAAAAUA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAADAAAAAAAAAAEFAAAAAAAAAAEAAAADAAAABAAAAAQAAAAEAAAAAQAAAAAAAAAAAAAAAAAA",
        "AAIAAAAAAAAABQAAAAYAAAACAAAAAAAAAAAAAAAAAAAABQAAAAAAAABzX2JvYgUAAAAAAAAAc19ib2IAAgAAAAAAAAAHAAAAAAAA",
        "AHNfYWxpY2UBAAAAAAAAAAAFAAAAAAAAAHNfYm9iAgAAAAAAAAAAAwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAADAAAAAAAAAAMAAAAEAAAACgAAAAMAAAAAAAAAEAAAAAAAAAATAAAAAAAAAAYAAAAAAAAAFwAA",
        "AAAAAAAHAAAAAAAAAAEAAAACAAAAAwAAAAUAAAAHAAAACQAAlwoAAAAKAAAAAAAAAAoAIAAAAAAAEgDAAAAAAAACAOABAAAAAA4A",
        "AAIAAAAACwAgAAAAAAAKACAAAAAAAA8AAAIAAAAADgAAAgAAAAALACAAAAAAAAUAIAIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==",
    ].joined()

    @Test func unitRunsThatContinueEachOtherAreDamage() throws {
        let bytes = try #require(Data(base64Encoded: Self.found)).map { $0 }
        #expect(DocumentSnapshot.version(bytes) == 4)
        #expect(throws: SnapshotFormatError.self) { try DocumentSnapshot(binary: bytes) }
        // Joined, the same runs are a well-formed column.
        #expect(UnitRuns.valid(counts: [7], firsts: [1]) && !UnitRuns.valid(counts: [3, 4], firsts: [1, 4]))
        #expect(UnitRuns.valid(counts: [3, 4], firsts: [1, 5]) && !UnitRuns.valid(counts: [3, 4], firsts: [0, 0]))
    }
}
