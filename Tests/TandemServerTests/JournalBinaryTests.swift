import TandemCore
import Testing
@testable import TandemServer

/// The binary form of stored changes: every event survives it bit for bit, payloads stored as
/// JSON by earlier servers still replay, and a damaged payload is refused, never half read.
@Suite struct JournalBinaryTests {
    static let events = JournalCodecTests.events

    @Test(arguments: events.indices)
    func eachEventRoundTrips(_ i: Int) throws {
        #expect(try JournalBinary.decode(JournalBinary.encode([Self.events[i]])) == [Self.events[i]])
    }

    @Test func aWholeJournalRoundTripsInOrder() throws {
        #expect(try JournalBinary.decode(JournalBinary.encode(Self.events)) == Self.events)
        #expect(try JournalBinary.decode(JournalBinary.encode([])) == [])
    }

    /// A keystroke, byte for byte: the layout is a stored format, so it must not drift.
    @Test func aKeystrokeIsTheseBytes() throws {
        let time = 1_795_546_967.3384328
        let keystroke = DocumentEvent.edit(OperationCoding(try TextOperation.insert("a", at: 300, length: 1000)), session: "s_h6aTRenFNsAR",
                                           options: EditOptions(), time: time)
        var expected: [UInt8] = [0x01, 0x01, 0xE8, 0x07, 0x01, 0xAC, 0x02, 0x00, 0x01, 0x61, 0x0F]
        expected += Array("s_h6aTRenFNsAR".utf8)
        expected += [0x00, 0x05]
        expected += withUnsafeBytes(of: time.bitPattern.littleEndian, Array.init)
        let bytes = JournalBinary.encode([keystroke])
        #expect(bytes == expected)
        // Against the JSON it replaces (86 bytes), well under half.
        #expect(bytes.count == 35)
        #expect(JournalCodec.encode([keystroke]).count == 86)
    }

    /// The tag byte of each event, pinned: the numbers are a stored format.
    @Test func tagsArePinned() {
        let expected: [UInt8] = [1, 1, 1, 2, 2, 3, 17, 17, 17, 17, 17, 4, 4, 5, 6, 6, 7, 7, 8, 9, 9, 9, 10, 11, 12, 13, 14, 15, 16]
        #expect(Self.events.map { JournalBinary.encode([$0])[1] } == expected)
    }

    @Test func everyChangeKindHasItsByte() throws {
        for (byte, kind) in [(0, .done), (1, .undone), (2, .redone), (3, .cleared)] as [(UInt8, DocumentChangeKind)] {
            let bytes = JournalBinary.encode([.updateChangeCount(kind)])
            #expect(bytes == [0x01, 0x0E, byte])
            #expect(try JournalBinary.decode(bytes) == [.updateChangeCount(kind)])
        }
    }

    @Test func timesKeepEveryBit() throws {
        for time in [0.1 + 0.2, -0.0, Double.leastNonzeroMagnitude, 1_795_546_967.3384328, .greatestFiniteMagnitude] {
            let e = DocumentEvent.redo(scope: .document, time: time)
            guard case let .redo(_, back) = try JournalBinary.decode(JournalBinary.encode([e]))[0] else {
                Issue.record("not a redo"); continue
            }
            #expect(back.bitPattern == time.bitPattern)
        }
    }

    /// Both forms through the one entry point that replays stored changes.
    @Test func storedChangesReplayInEitherForm() throws {
        #expect(try ChangeCodec.decode(ChangeCodec.encode(Self.events)) == Self.events)
        #expect(JournalBinary.isBinary(ChangeCodec.encode(Self.events)))
        #expect(try ChangeCodec.decode(JournalCodec.encode(Self.events)) == Self.events)
        #expect(try ChangeCodec.decode(Array(#"[["removeAllWithTarget","s_9"]]"#.utf8)) == [.removeAllActionsWithTarget("s_9")])
    }

    /// Cut short anywhere inside its last event, a payload is refused: never replayed as fewer
    /// events or with a field read from nothing.
    @Test func everyTruncationIsRefused() throws {
        for event in Self.events {
            let bytes = JournalBinary.encode([.setGroupsByEvent(true), event])
            for cut in 4..<bytes.count {
                #expect(throws: JournalCodec.DecodeError.self, "\(event) cut at \(cut)") {
                    try JournalBinary.decode(Array(bytes[..<cut]))
                }
            }
        }
    }

    static let damaged: [(name: String, bytes: [UInt8])] = [
        ("not binary", Array("[]".utf8)),
        ("empty", []),
        ("unknown tag", [0x01, 0x00]),
        ("tag past the last", [0x01, 0x14]),
        ("undo kind past undoNestedGroup", [0x01, 0x11, 0x03, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]),
        ("negative undo group", [0x01, 0x11, 0x00, 0x00, 0x00] + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01] + [0, 0, 0, 0, 0, 0, 0, 0]),
        ("an undo cut before its time", [0x01, 0x11, 0x00, 0x00, 0x00, 0x00, 0, 0, 0]),
        ("bool of 2", [0x01, 0x08, 0x02]),
        ("change kind past cleared", [0x01, 0x0E, 0x04]),
        ("edit options past the four flags", [0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x10, 0, 0, 0, 0, 0, 0, 0, 0]),
        ("string longer than the payload", [0x01, 0x0A, 0x05, 0x61]),
        ("negative string length", [0x01, 0x0A] + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
        ("varint past 64 bits", [0x01, 0x10] + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02]),
        ("invalid UTF-8", [0x01, 0x0A, 0x02, 0xC3, 0x28]),
        ("an edit whose splice does not fit", [0x01, 0x01, 0x02, 0x01, 0x05, 0x00, 0x01, 0x61, 0x00, 0x00, 0x05, 0, 0, 0, 0, 0, 0, 0, 0]),
    ]

    @Test(arguments: damaged.indices)
    func damageIsRefused(_ i: Int) {
        #expect(throws: JournalCodec.DecodeError.self, "\(Self.damaged[i].name)") {
            try JournalBinary.decode(Self.damaged[i].bytes)
        }
    }
}
