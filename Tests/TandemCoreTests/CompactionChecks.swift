import Foundation
import Testing
@testable import TandemCore

/// What the compaction tests compare: a document whose trim renumbered its undo state and a
/// reference trimmed without renumbering must look the same to every client.
enum CompactionChecks {
    /// Keeps a document's journal as it is written.
    final class Journal {
        var events: [DocumentEvent] = []
    }

    /// Two documents built alike by `build`: one to compact, with its journal recorded from
    /// the start, and a reference left alone.
    static func twins(_ build: (Document) throws -> Void) throws -> (compacted: Document, journal: Journal, reference: Document) {
        let compacted = Document(text: "")
        let journal = Journal()
        compacted.journal = { journal.events.append($0) }
        let reference = Document(text: "")
        try build(compacted)
        try build(reference)
        return (compacted, journal, reference)
    }

    /// The text, the history in every scope, and each retained change's session, action
    /// name and operation.
    static func expectSame(_ a: Document, _ b: Document, scopes: [UndoScope]) throws {
        #expect(a.text == b.text)
        #expect(a.revision == b.revision)
        for scope in scopes { #expect(a.undoManager.history(scope) == b.undoManager.history(scope)) }
        let since = a.log.firstAvailableRevision - 1
        let (ca, cb) = (try a.changes(since: since), try b.changes(since: since))
        #expect(ca.map(\.session) == cb.map(\.session))
        #expect(ca.map(\.actionName) == cb.map(\.actionName))
        #expect(ca.map(\.operation) == cb.map(\.operation))
    }

    /// `doc` restored from its snapshot; a replay of its journal from the start must give
    /// the very same snapshot (the renumbering happens at the same points).
    static func restoredAndReplayed(_ doc: Document, journal events: [DocumentEvent]) throws -> Document {
        let restored = try Document(snapshot: JSONDecoder().decode(DocumentSnapshot.self, from: JSONEncoder().encode(doc.snapshot())))
        let replayed = Document(text: "")
        for event in events { try replayed.replay(event) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try encoder.encode(replayed.snapshot()) == encoder.encode(doc.snapshot()))
        return restored
    }

    /// Every scope undone to the bottom and redone once, step by step alike.
    static func undoEverything(_ a: Document, _ b: Document, scopes: [UndoScope], time: Double) throws {
        for scope in scopes.reversed() {
            var steps = 0
            while a.undoManager.canUndo(scope) {
                let (x, y) = (try a.undo(scope: scope, time: time), try b.undo(scope: scope, time: time))
                #expect(x.operation == y.operation && x.range == y.range)
                steps += 1
            }
            #expect(!b.undoManager.canUndo(scope))
            #expect(steps > 0)
            if a.undoManager.canRedo(scope) {
                let (x, y) = (try a.redo(scope: scope, time: time + 1), try b.redo(scope: scope, time: time + 1))
                #expect(x.operation == y.operation)
            }
            #expect(a.text == b.text)
        }
    }
}
