import Foundation
import Testing
@testable import TandemCore

/// Trimming the log renumbers the undo groups once most of them are unreachable: the
/// group table stays the size of the retained history instead of growing with every edit
/// ever made, and nothing a client can see changes.
@Suite struct GroupCompactionTests {
    let sessions: [SessionID] = ["a", "b", "c"]
    var scopes: [UndoScope] { [.document] + sessions.map { .session($0) } }

    /// Three typists, each word its own group, then one undo (a redo entry), an explicit
    /// group left open and a typing run in progress, all kept across the trim.
    func busy(_ doc: Document) throws {
        for i in 0..<9_000 {
            // Every tenth word under a name of its own, as a client may send.
            try doc.apply(ins(doc, "w", at: (i * 7) % (doc.length + 1)), session: sessions[i % 3],
                          options: .init(actionName: i % 10 == 0 ? "Word \(i)" : nil, newGroup: true), time: Double(i))
        }
        try doc.undo(scope: .session("b"), time: 9_000)
        doc.undoManager.beginUndoGrouping(session: "c")
        try doc.apply(ins(doc, "open", at: 0), session: "c", options: .init(actionName: "Paste"), time: 9_001)
        try doc.apply(ins(doc, "t", at: doc.length), session: "a", time: 9_002)
        try doc.apply(ins(doc, "u", at: doc.length), session: "a", time: 9_002.1)
    }

    @Test func trimmingRenumbersTheGroupsAndChangesNothingElse() throws {
        let (compacted, journal, reference) = try CompactionChecks.twins(busy)
        let before = compacted.undoManager.groups.count

        compacted.trimLog(through: 8_000)
        // The same trim without the renumbering.
        reference.undoManager.dropGroups(through: 8_000)
        reference.log.trim(through: 8_000)

        #expect(before > 9_000)
        #expect(compacted.undoManager.groups.count < 1_500)
        #expect(reference.undoManager.groups.count == before)
        // "Typing", "Paste" and the names of the 100 words left.
        #expect(compacted.undoManager.names.count < 110)
        #expect(reference.undoManager.names.count > 900)
        #expect(compacted.undoManager.names[0] == "Typing")
        try CompactionChecks.expectSame(compacted, reference, scopes: scopes)

        // A snapshot of the renumbered state, and a replay of the journal from the start,
        // give the very same ids.
        let restored = try CompactionChecks.restoredAndReplayed(compacted, journal: journal.events)
        try CompactionChecks.expectSame(restored, reference, scopes: scopes)

        // Typing goes on coalescing into the run that was in progress, and new groups follow.
        for doc in [compacted, reference] {
            try doc.apply(ins(doc, "v", at: doc.length), session: "a", time: 9_002.2)
            try doc.undoManager.endUndoGrouping(session: "c")
            try doc.apply(ins(doc, "new", at: 0), session: "b", options: .init(newGroup: true), time: 9_003)
        }
        try CompactionChecks.expectSame(compacted, reference, scopes: scopes)
        try CompactionChecks.undoEverything(compacted, reference, scopes: scopes, time: 10_000)
    }

    @Test func aFewDeadGroupsAreLeftWhereTheyAre() throws {
        let doc = Document(text: "")
        for i in 0..<300 {
            try doc.apply(ins(doc, "w", at: doc.length), session: sessions[i % 3], options: .init(newGroup: true), time: Double(i))
        }
        doc.trimLog(through: 200)
        #expect(doc.undoManager.groups.count == 300)
    }
}
