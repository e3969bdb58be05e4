import Foundation
import Testing
@testable import TandemCore

/// Who wrote each character (`Authorship`): kept with the units' identities as changes apply,
/// so text an undo or redo puts back keeps its first writer, and a snapshot or a replay of the
/// journal answers the same.
@Suite struct AuthorshipTests {
    /// The text with each run in brackets named by its author: "[a:hello][b: world]".
    static func shown(_ doc: Document, at revision: Int? = nil) throws -> String {
        let text = Array(try doc.rope(atRevision: revision ?? doc.revision).description.utf16)
        return try doc.authors(atRevision: revision).map { run in
            "[\(run.author ?? "?"):" + String(decoding: text[run.from..<run.to], as: UTF16.self) + "]"
        }.joined()
    }

    @Test func eachPersonsTypingIsTheirsAndTheStartingTextIsTheCreators() throws {
        let doc = Document(text: "Title\n", author: "ada")
        try doc.apply(ins(doc, "Hello", at: 6), session: "bob", time: 0)
        try doc.apply(ins(doc, " world", at: 11), session: "cy", time: 0)
        try doc.apply(ins(doc, "!", at: 17), session: "bob", time: 0)
        #expect(try Self.shown(doc) == "[ada:Title\n][bob:Hello][cy: world][bob:!]")
        #expect(doc.authorship.names == ["ada", "bob", "cy"])
    }

    @Test func typingInsideAnotherPersonsWordSplitsTheirRun() throws {
        let doc = Document(text: "", author: nil)
        try doc.apply(ins(doc, "abcdef", at: 0), session: "a", time: 0)
        try doc.apply(ins(doc, "XY", at: 3), session: "b", time: 0)
        #expect(try Self.shown(doc) == "[a:abc][b:XY][a:def]")
        // Neighbours of one author are one run, whatever their identities.
        try doc.apply(del(doc, 3, 5), session: "c", time: 0)
        #expect(try Self.shown(doc) == "[a:abcdef]")
    }

    @Test func textAnUndoPutsBackKeepsItsFirstWriterWhoeverUndid() throws {
        let doc = Document(text: "")
        try doc.apply(ins(doc, "hello", at: 0), session: "a", options: .init(newGroup: true), time: 0)
        try doc.apply(del(doc, 1, 4), session: "b", options: .init(newGroup: true), time: 0)   // "ho"
        try doc.apply(ins(doc, "!", at: 2), session: "c", options: .init(newGroup: true), time: 0)
        try doc.undo(scope: .session("b"), time: 1)
        #expect(doc.text == "hello!")
        #expect(try Self.shown(doc) == "[a:hello][c:!]")
        // Undone and redone, a's own text is still a's.
        try doc.undo(scope: .session("a"), time: 1)
        #expect(try Self.shown(doc) == "[c:!]")
        try doc.redo(scope: .session("a"), time: 1)
        #expect(try Self.shown(doc) == "[a:hello][c:!]")
    }

    /// An older group undone on its own (selective undo) past others' later typing: what it
    /// deleted comes back as its first writer's, and the later typing stays its typist's.
    @Test func aSelectiveUndoOfAnOlderGroupGivesBackTextToItsWriters() throws {
        let doc = Document(text: "one two", author: "ada")
        try doc.apply(del(doc, 0, 4), session: "bob", options: .init(newGroup: true), time: 0)     // "two"
        let first = doc.undoManager.history(.session("bob")).undoStack.last!.id
        try doc.apply(ins(doc, "!", at: 3), session: "bob", options: .init(newGroup: true), time: 1)  // "two!"
        try doc.apply(ins(doc, "?", at: 0), session: "cy", options: .init(newGroup: true), time: 2)   // "?two!"
        try doc.undo(group: first, session: "bob", time: 3)
        #expect(doc.text == "one ?two!")
        #expect(try Self.shown(doc) == "[ada:one ][cy:?][ada:two][bob:!]")
    }

    /// Edits made against an older revision are rebased onto the text as it is: each keeps
    /// its own typist, wherever it lands.
    @Test func editsOnAStaleBaseKeepTheirTypists() throws {
        let doc = Document(text: "ac", author: "ada")
        try doc.apply(ins(doc, "b", at: 1), session: "bob", time: 0)                            // "abc"
        let stale = try TextOperation.insert("X", at: 2, length: 2)                             // against "ac"
        try doc.apply(stale, base: 0, session: "cy", time: 1)
        #expect(doc.text == "abcX")
        #expect(try Self.shown(doc) == "[ada:a][bob:b][ada:c][cy:X]")
    }

    @Test func anEarlierRevisionStillInTheLogIsAnsweredAsItWas() throws {
        let doc = Document(text: "x", author: "a")
        try doc.apply(ins(doc, "yy", at: 1), session: "b", time: 0)
        try doc.apply(del(doc, 0, 1), session: "c", time: 0)
        try doc.apply(ins(doc, "zz", at: 0), session: "c", time: 0)
        #expect(try Self.shown(doc, at: 0) == "[a:x]")
        #expect(try Self.shown(doc, at: 1) == "[a:x][b:yy]")
        #expect(try Self.shown(doc, at: 2) == "[b:yy]")
        #expect(try Self.shown(doc) == "[c:zz][b:yy]")
        doc.trimLog(through: 2)
        #expect(throws: DocumentError.self) { try doc.authors(atRevision: 1) }
        #expect(try Self.shown(doc, at: 2) == "[b:yy]")
    }

    @Test func aSnapshotJSONOrBinaryAndAReplayOfTheJournalAnswerTheSame() throws {
        let doc = Document(text: "start ", author: "ada")
        var journal: [DocumentEvent] = []
        doc.journal = { journal.append($0) }
        let base = Document(text: "start ", author: "ada")
        try doc.apply(ins(doc, "one ", at: 6), session: "bob", options: .init(newGroup: true), time: 0)
        try doc.apply(ins(doc, "two", at: 10), session: "cy", options: .init(newGroup: true), time: 0)
        try doc.apply(del(doc, 0, 6), session: "cy", options: .init(newGroup: true), time: 0)
        try doc.undo(scope: .session("cy"), time: 1)
        let expected = try Self.shown(doc)
        #expect(expected == "[ada:start ][bob:one ][cy:two]")

        let snapshot = doc.snapshot()
        let fromJSON = try Document(snapshot: JSONDecoder().decode(DocumentSnapshot.self, from: JSONEncoder().encode(snapshot)))
        let fromBinary = try Document(snapshot: DocumentSnapshot(binary: snapshot.binary()))
        for copy in [fromJSON, fromBinary] {
            #expect(try Self.shown(copy) == expected)
            #expect(copy.authorship == doc.authorship)
        }
        for event in journal { try base.replay(event) }
        #expect(try Self.shown(base) == expected)
    }

    @Test func aSnapshotFromBeforeAuthorshipLoadsWithItsTextOfUnknownAuthor() throws {
        let doc = Document(text: "old", author: "ada")
        try doc.apply(ins(doc, "!", at: 3), session: "bob", time: 0)
        let old = try Document(snapshot: DocumentSnapshot(binary: doc.snapshot().binary(version: 4)))
        #expect(try Self.shown(old) == "[?:old!]")
        try old.apply(ins(old, "?", at: 4), session: "cy", time: 0)
        #expect(try Self.shown(old) == "[?:old!][cy:?]")
    }

    @Test func damagedMarksAreRefused() {
        #expect(Authorship(firsts: [5, 3], authors: [0, 0], names: ["a"]) == nil)
        #expect(Authorship(firsts: [1], authors: [1], names: ["a"]) == nil)
        #expect(Authorship(firsts: [1, 2], authors: [0], names: ["a"]) == nil)
        #expect(Authorship(firsts: [1, 2], authors: [0, -1], names: ["a"]) != nil)
    }
}
