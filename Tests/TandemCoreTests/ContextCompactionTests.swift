import Foundation
import Testing
@testable import TandemCore

/// Trimming the log drops the undo contexts of sessions that left nothing behind: a
/// document visited by many sessions keeps contexts for the ones still in its history, not
/// for every session that ever typed in it, and nothing a client can see changes.
@Suite struct ContextCompactionTests {
    let residents: [SessionID] = ["a", "b", "c"]
    var scopes: [UndoScope] { [.document] + residents.map { .session($0) } }

    /// 400 visitors each type three words (one not undoable: it names its context from the
    /// log alone) between the residents' words, and leave; "c" keeps a setting of its own,
    /// "b" clears its history early and types nothing more until after the trim, and "a"
    /// makes the last edit.
    func visited(_ doc: Document) throws {
        doc.undoManager.setLevelsOfUndo(500, scope: .session("c"))
        var time = 0.0
        func type(_ text: String, _ session: SessionID, _ options: EditOptions = .init(newGroup: true)) throws {
            time += 1
            try doc.apply(ins(doc, text, at: Int(time * 7) % (doc.length + 1)), session: session, options: options, time: time)
        }
        for v in 0..<400 {
            let visitor = "v\(v)"
            try type("x", visitor)
            try type("y", residents[v % 3 == 1 ? 0 : v % 3])
            try type("z", visitor, .init(actionName: "Word \(v)", newGroup: true))
            try type("w", visitor, .init(undoable: false))
            doc.undoManager.removeAllActions(withTarget: visitor)
            doc.removeSelection(for: visitor)
            if v == 10 {
                try type("b", "b")
                doc.undoManager.removeAllActions(.session("b"))
            }
        }
        // "a" edits last before the trim, then undoes (a redo entry to keep).
        try type("q", "a")
        try type("r", "a")
        try doc.undo(scope: .session("a"), time: time + 1)
    }

    @Test func anEndedSessionsOpenGroupsAndSettingsGoWithIt() throws {
        // Visitors that end with a group open (two levels for half of them) and a
        // levelsOfUndo of their own: nothing can close or use those any more.
        let doc = Document(text: "")
        var events: [DocumentEvent] = []
        doc.journal = { events.append($0) }
        var time = 0.0
        for v in 0..<100 {
            let visitor = "v\(v)"
            doc.undoManager.setLevelsOfUndo(5, scope: .session(visitor))
            doc.undoManager.beginUndoGrouping(session: visitor)
            if v % 2 == 0 { doc.undoManager.beginUndoGrouping(session: visitor) }
            doc.undoManager.setActionName("Word \(v)", scope: .session(visitor))
            time += 1
            try doc.apply(ins(doc, "x", at: 0), session: visitor, time: time)
            doc.undoManager.removeAllActions(withTarget: visitor)
            #expect(doc.undoManager.groupingLevel(.session(visitor)) == 0)
            #expect(doc.undoManager.levelsOfUndo(.session(visitor)) == 0)
            #expect(!doc.undoManager.canUndo(.session(visitor)))
        }
        // The anonymous context types on until the visitors' changes can be trimmed away.
        for i in 0..<50 {
            time += 1
            try doc.apply(ins(doc, "y", at: i), session: nil, options: .init(newGroup: true), time: time)
        }
        #expect(doc.undoManager.contexts.count == 101)
        doc.trimLog(through: 100)
        #expect(doc.undoManager.contexts.map(\.session) == [nil])
        // A replay of the journal ends in the same state.
        let restored = try CompactionChecks.restoredAndReplayed(doc, journal: events)
        try CompactionChecks.expectSame(restored, doc, scopes: [.document, .session("v3")])
    }

    @Test func trimmingDropsTheContextsOfSessionsThatLeftNothingBehind() throws {
        let (compacted, journal, reference) = try CompactionChecks.twins(visited)
        #expect(compacted.undoManager.contexts.count == 404)

        // The last 200 changes (50 visitors' worth) stay in the log.
        let through = compacted.revision - 200
        compacted.trimLog(through: through)
        reference.undoManager.dropGroups(through: through)
        reference.log.trim(through: through)

        // The anonymous context, "a" and "c" (groups; "c" has a setting too), and the
        // visitors whose changes are still logged. "b" cleared and idle: gone as well.
        let kept = compacted.undoManager.contexts.compactMap(\.session)
        #expect(Set(kept) == Set(["a", "c"] + (350..<400).map { "v\($0)" }))
        #expect(compacted.undoManager.contexts[0].session == nil)
        #expect(compacted.undoManager.contextIndex.count == kept.count)
        #expect(reference.undoManager.contexts.count == 404)
        try CompactionChecks.expectSame(compacted, reference, scopes: scopes)

        let restored = try CompactionChecks.restoredAndReplayed(compacted, journal: journal.events)
        try CompactionChecks.expectSame(restored, reference, scopes: scopes)

        // The session edited last before the trim ("a") goes on in its own context, and "b"
        // comes back to a new one; both undo only their own words.
        for doc in [compacted, restored, reference] {
            let t = 100_000.0
            try doc.apply(ins(doc, "A", at: 0), session: "a", options: .init(newGroup: true), time: t)
            try doc.apply(ins(doc, "B", at: 0), session: "b", options: .init(newGroup: true), time: t + 1)
        }
        for doc in [compacted, restored] {
            #expect(try doc.changes(since: doc.revision - 2).map(\.session) == ["a", "b"])
        }
        let undone = try [compacted, restored, reference].map { try $0.undo(scope: .session("a"), time: 100_002).operation }
        #expect(undone[0] == undone[2] && undone[1] == undone[2])
        try CompactionChecks.expectSame(compacted, reference, scopes: scopes)
        try CompactionChecks.expectSame(restored, reference, scopes: scopes)
        try CompactionChecks.undoEverything(compacted, reference, scopes: scopes, time: 200_000)
    }

    @Test func aFewDeadContextsAreLeftWhereTheyAre() throws {
        let doc = Document(text: "")
        for v in 0..<40 {
            try doc.apply(ins(doc, "x", at: doc.length), session: "v\(v)", time: Double(v))
            doc.undoManager.removeAllActions(withTarget: "v\(v)")
        }
        try doc.apply(ins(doc, "x", at: doc.length), session: "a", time: 50)
        doc.trimLog(through: doc.revision)
        #expect(doc.undoManager.contexts.count == 42)
    }
}
