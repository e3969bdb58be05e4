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

    /// Changes that open no undo group (unregistered), so only their own notification frames.
    static func apply(_ sessions: [String?], to doc: Document, options: EditOptions = .init(undoable: false)) throws -> [Change] {
        try sessions.map { session in
            let op = try TextOperation(splices: [.init(position: 0, deleted: 0, inserted: "x")], baseLength: doc.length)
            return try #require(try doc.apply(op, session: session, options: options, time: 0))
        }
    }

    /// An edit that opened an automatic group is bracketed by the group's open (before it) and
    /// close (after its checkpoint); the brackets are never coalesced, the checkpoints still are.
    @Test func anAutomaticGroupsOpenAndCloseBracketItsChangeAndAreNeverCoalesced() throws {
        let changes = try Self.apply(["a", "a"], to: Document(text: ""), options: .init())
        #expect(changes.map(\.opensAutomaticGroup) == [true, true])
        var w = JSONWriter(capacity: 1024)
        let marks = ServerSentEvents.appendChangeEvents(changes.map { .init(change: $0, notification: "checkpoint") }, to: &w)
        let text = String(decoding: w.bytes, as: UTF8.self)
        let names = text.split(separator: "\n\n").compactMap { frame in
            frame.contains("event: history") ? frame.split(separator: "\"notification\":\"")[1].prefix { $0 != "\"" } : "change"
        }
        #expect(names == ["didOpenUndoGroup", "change", "willCloseUndoGroup", "didCloseUndoGroup",
                          "didOpenUndoGroup", "change", "checkpoint", "willCloseUndoGroup", "didCloseUndoGroup"])
        #expect(Self.events(w.bytes) == ["history@0", "change@1", "history@1", "history@1",
                                         "history@1", "change@2", "history@2", "history@2", "history@2"])
        #expect(marks.map(\.key) == ["checkpoint\u{0}a"])
    }

    /// "change@1", "history@1" for each frame of a stream's text.
    static func events(_ bytes: [UInt8]) -> [String] {
        String(decoding: bytes, as: UTF8.self).split(separator: "\n\n").map { frame in
            let lines = frame.split(separator: "\n")
            return "\(lines[1].dropFirst("event: ".count))@\(lines[0].dropFirst("id: ".count))"
        }
    }

    /// A group commit's framing writes every change and, per session and notification, the
    /// last history event only; the ranges it returns are exactly those history frames.
    @Test func aGroupCommitFramesEachSessionsLastNotification() throws {
        let changes = try Self.apply(["a", "a", "b", "a", nil, "b", nil], to: Document(text: ""))
        var w = JSONWriter(capacity: 1024)
        let events = changes.enumerated().map { i, c in
            ServerSentEvents.ChangeEvent(change: c, notification: i == 1 ? "didUndo" : "checkpoint")
        }
        let marks = ServerSentEvents.appendChangeEvents(events, to: &w)
        #expect(Self.events(w.bytes) == ["change@1", "change@2", "history@2", "change@3", "change@4", "history@4",
                                         "change@5", "change@6", "history@6", "change@7", "history@7"])
        #expect(marks.map { Self.events(Array(w.bytes[$0.range])) } == [["history@2"], ["history@4"], ["history@6"], ["history@7"]])
        #expect(marks.map(\.key) == ["didUndo\u{0}a", "checkpoint\u{0}a", "checkpoint\u{0}b", "checkpoint\u{0}"])
        // Nothing left within the batch for a flush to drop.
        let out = EventChannel.coalesce([.init(frame: w.bytes, revisions: 1...7, include: nil, coalescable: marks)])
        #expect(out[0].frame == w.bytes)
    }

    /// Across group commits in one flush, a session's newer history event still replaces the
    /// older batch's.
    @Test func aLaterGroupCommitReplacesAnEarlierOnesNotification() throws {
        let changes = try Self.apply(["a", "b", "a"], to: Document(text: ""))
        var first = JSONWriter(capacity: 512), second = JSONWriter(capacity: 256)
        let firstMarks = ServerSentEvents.appendChangeEvents(changes[0...1].map { .init(change: $0, notification: "checkpoint") }, to: &first)
        let secondMarks = ServerSentEvents.appendChangeEvents([.init(change: changes[2], notification: "checkpoint")], to: &second)
        let out = EventChannel.coalesce([
            .init(frame: first.bytes, revisions: 1...2, include: nil, coalescable: firstMarks),
            .init(frame: second.bytes, revisions: 3...3, include: nil, coalescable: secondMarks),
        ])
        #expect(out.map { Self.events($0.frame) } == [["change@1", "change@2", "history@2"], ["change@3", "history@3"]])
    }
}
