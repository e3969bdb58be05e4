import TandemCore
import TandemHTTP
import Testing
@testable import TandemServer

/// How a node that does not hold a document reads the owner's one stream of it
/// (`StreamMirror`): each change with the history events around it is one unit, tagged with its
/// revision, so a subscriber that joined at a revision is sent exactly the units after it.
@Suite struct StreamMirrorTests {
    static func frame(_ id: Int?, _ event: String, _ data: String) -> [UInt8] {
        ServerSentEvents.frame(id: id, event: event, data: Array(data.utf8))
    }

    static func summary(_ units: [StreamMirror.ParsedUnit]) -> [String] {
        units.map { unit in
            let events = EventStreamReader.events(unit.bytes).map { range -> String in
                switch EventStreamReader.header(unit.bytes, range).name {
                case .change: "change"
                case .history: "history"
                case .presence: "presence"
                case .relayJoined: "relay"
                case .other: String(decoding: unit.bytes[range], as: UTF8.self).hasPrefix(":") ? "-" : "title"
                }
            }
            return "\(unit.kind)@\(unit.tag):" + events.joined(separator: ",")
        }
    }

    @Test func changesTakeTheHistoryEventsAroundThemAndOtherEventsStandAlone() throws {
        let changes = try EventCoalescingTests.apply(["a", "a"], to: Document(text: ""), options: .init())
        var w = JSONWriter(capacity: 1024)
        ServerSentEvents.appendChangeEvents(changes.map { .init(change: $0, notification: "checkpoint") }, to: &w)
        let stream = Self.frame(nil, ServerSentEvents.relayEvent, #"{"revision":0}"#) + w.bytes
            + Self.frame(2, "presence", "[]") + ServerSentEvents.keepAlive + Self.frame(2, "title", #"{"title":"t"}"#)
        var joined: [Int] = []
        let units = StreamMirror.units(stream) { joined.append($0) }
        #expect(joined == [0])
        #expect(Self.summary(units) == [
            "change(1)@1:history,change,history,history",
            "change(2)@2:history,change,history,history,history",
            "presence@2:presence",
            "other@\(Int.max):-",
            "other@2:title",
        ])
    }

    /// An undo's `willUndo` comes before its change, with the revision before it: it belongs to
    /// the change after it, and a subscriber that has that revision already skips both.
    @Test func anUndosLeadingNotificationIsPartOfTheChangeAfterIt() {
        let stream = Self.frame(4, "change", "{}") + Self.frame(4, "history", #"{"notification":"checkpoint"}"#)
            + Self.frame(4, "history", #"{"notification":"willUndo"}"#) + Self.frame(5, "change", "{}")
            + Self.frame(5, "history", #"{"notification":"didUndo"}"#)
        #expect(Self.summary(StreamMirror.units(stream) { _ in }) == [
            "change(4)@4:change,history",
            "change(5)@5:history,change,history",
        ])
    }

    /// A piece of the stream may end between an undo's leading notification and its change.
    @Test func aLeadingNotificationCutOffFromItsChangeStandsAloneTaggedWithIt() {
        let units = StreamMirror.units(Self.frame(4, "history", #"{"notification":"willRedo"}"#)) { _ in }
        #expect(Self.summary(units) == ["other@5:history"])
    }

    @Test func theJoinMarkerIsFoundAmongOtherEventsAndCutOut() throws {
        let before = Self.frame(3, "change", "{}") + Self.frame(3, "presence", "[]")
        let after = Self.frame(nil, "pasteboard", "{}")
        let found = try #require(ServerSentEvents.relayJoined(in: before + ServerSentEvents.relayJoined(revision: 3) + after))
        #expect(Array(found.before) == before)
        #expect(found.revision == 3)
        #expect(Array(found.after) == after)
        #expect(ServerSentEvents.relayJoined(in: before + after) == nil)
        let alone = try #require(ServerSentEvents.relayJoined(in: ServerSentEvents.relayJoined(revision: 7)))
        #expect(alone.before.isEmpty && alone.after.isEmpty && alone.revision == 7)
    }

    /// What each part of a relayed stream is sent: the mirror every frame meant for all, a
    /// subscriber's control stream only those meant for it alone.
    @Test(arguments: [
        (EventChannel.Role.full, [true, true, false]),
        (.mirror, [true, false, false]),
        (.control, [false, true, false]),
    ])
    func eachPartOfAStreamTakesItsFrames(role: EventChannel.Role, takes: [Bool]) {
        let subscriber = EventChannel.Subscriber(writer: HTTPStreamWriter(.init(write: { _ in true }, finish: {}, bufferedByteCount: { 0 }, isClosed: { false }, onClose: { _ in })), caller: Caller(), revision: 0, role: role)
        let forAll: (@Sendable (EventChannel.Subscriber) -> Bool)? = nil
        #expect([subscriber.takes(forAll), subscriber.takes { _ in true }, subscriber.takes { _ in false }] == takes)
    }
}
