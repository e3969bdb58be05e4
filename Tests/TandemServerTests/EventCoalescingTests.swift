import TandemCore
import Testing
@testable import TandemServer

/// Within one flush, a coalescable frame is dropped when a later one of its key follows; every
/// other byte stays, in order.
@Suite struct EventCoalescingTests {
    /// An entry of frames written as `text`, the bracketed ones coalescable under the key
    /// inside the brackets' first letter: "c1[a1]c2[b2]".
    static func entry(_ text: String, revisions: ClosedRange<Int>? = 1...1) -> EventChannel.Queued {
        let bytes = Array(text.utf8)
        var marks: [EventChannel.Coalescable] = []
        var start: Int?
        for (i, b) in bytes.enumerated() {
            if b == UInt8(ascii: "[") { start = i }
            if b == UInt8(ascii: "]"), let s = start {
                marks.append(.init(key: String(decoding: bytes[s + 1..<s + 2], as: UTF8.self), range: s..<i + 1))
                start = nil
            }
        }
        return .init(frame: bytes, revisions: revisions, include: nil, coalescable: marks)
    }

    static func texts(_ queued: [EventChannel.Queued]) -> [String] {
        queued.map { String(decoding: $0.frame, as: UTF8.self) }
    }

    @Test(arguments: [
        // Nothing coalescable: untouched.
        (["c1c2", "p"], ["c1c2", "p"]),
        // One of each key: all kept.
        (["c1[a1]c2[b2]"], ["c1[a1]c2[b2]"]),
        // The same key twice in one entry: the last stays.
        (["c1[a1]c2[a2]"], ["c1c2[a2]"]),
        (["c1[a1]c2[b2]c3[a3]c4[b4]"], ["c1c2c3[a3]c4[b4]"]),
        // Across entries, and past a plain frame between them.
        (["c1[a1]c2[b2]", "p", "c3[a3]"], ["c1c2[b2]", "p", "c3[a3]"]),
        (["c1[a1]", "c2[a2]", "c3[a3]"], ["c1", "c2", "c3[a3]"]),
        // Keys differ by notification too: "didUndo" for a does not stand for "checkpoint".
        (["c1[a1]c2[u2]c3[a3]"], ["c1c2[u2]c3[a3]"]),
        // A whole frame that a later one replaces (presence): only the last is left.
        (["[p1]", "c1[a1]", "[p2]", "c2", "[p3]"], ["", "c1[a1]", "", "c2", "[p3]"]),
    ])
    func keepsTheLastOfEachKey(input: [String], expected: [String]) {
        let out = EventChannel.coalesce(input.map { Self.entry($0) })
        #expect(Self.texts(out) == expected)
        #expect(out.map(\.revisions) == input.map { _ in 1...1 })
    }

    /// The ranges a group commit's framing marks are exactly its history frames: coalesced,
    /// the stream keeps every change and, per session, the last notification only.
    @Test func aGroupCommitKeepsEachSessionsLastNotification() throws {
        let doc = Document(text: "")
        var changes: [Change] = []
        for (i, session) in ["a", "a", "b", "a", "b"].enumerated() {
            let op = try TextOperation(splices: [.init(position: 0, deleted: 0, inserted: "x")], baseLength: i)
            changes.append(try #require(try doc.apply(op, session: session, time: Double(i))))
        }
        var w = JSONWriter(capacity: 1024)
        let marks = changes.map { ServerSentEvents.appendChangeEvents($0, notification: "checkpoint", to: &w) }
        for m in marks {
            #expect(String(decoding: w.bytes[m.range], as: UTF8.self).hasPrefix("id: "))
            #expect(String(decoding: w.bytes[m.range], as: UTF8.self).contains("\nevent: history\n"))
        }
        let out = EventChannel.coalesce([.init(frame: w.bytes, revisions: 1...5, include: nil, coalescable: marks)])
        let events = String(decoding: out[0].frame, as: UTF8.self).split(separator: "\n\n").map { frame in
            let lines = frame.split(separator: "\n")
            return "\(lines[1].dropFirst("event: ".count))@\(lines[0].dropFirst("id: ".count))"
        }
        #expect(events == ["change@1", "change@2", "change@3", "change@4", "history@4", "change@5", "history@5"])
    }
}
