import Testing
@testable import TandemCore

/// What changed between two revisions of one document (`TextChanges`): by identity where the
/// units are known, so a change is what people did; by lines otherwise.
@Suite struct TextChangesTests {
    static func shown(_ changes: TextChanges) -> [String] {
        changes.stretches.map { "\($0.kind == .insert ? "+" : "-")\($0.at):\($0.text)@\($0.author ?? "?")" }
    }

    static func between(_ doc: Document, _ a: Int, _ b: Int) throws -> TextChanges {
        let ta = Array(try doc.rope(atRevision: a).description.utf16), tb = Array(try doc.rope(atRevision: b).description.utf16)
        return try #require(TextChanges.between((ta, try doc.unitRuns(atRevision: a)), (tb, try doc.unitRuns(atRevision: b)),
                                                authorship: doc.authorship))
    }

    @Test func insertionsAndDeletionsAreWhatPeopleDidWithTheirAuthors() throws {
        let doc = Document(text: "The cat sat.", author: "ada")
        try doc.apply(ins(doc, "black ", at: 4), session: "bob", time: 0)       // The black cat sat.
        try doc.apply(del(doc, 13, 17), session: "cy", time: 0)                  // The black cat.
        try doc.apply(ins(doc, " slept", at: 13), session: "cy", time: 0)       // The black cat slept.
        #expect(doc.text == "The black cat slept.")
        let changes = try Self.between(doc, 0, 3)
        #expect(changes.byIdentity)
        #expect(Self.shown(changes) == ["+4:black @bob", "-13: sat@ada", "+13: slept@cy"])
        #expect(changes.inserted == 12 && changes.deleted == 4)
        // Nothing between a revision and itself.
        #expect(try Self.between(doc, 2, 2).stretches.isEmpty)
    }

    @Test func theSameLettersTypedAgainAreAChangeAndAnUndoneDeleteIsNone() throws {
        let doc = Document(text: "abc", author: "ada")
        try doc.apply(del(doc, 1, 2), session: "bob", options: .init(newGroup: true), time: 0)
        try doc.apply(ins(doc, "b", at: 1), session: "bob", options: .init(newGroup: true), time: 0)
        #expect(Self.shown(try Self.between(doc, 0, 2)) == ["-1:b@ada", "+1:b@bob"])
        try doc.undo(scope: .session("bob"), time: 1)
        try doc.undo(scope: .session("bob"), time: 1)
        #expect(doc.text == "abc")
        #expect(try Self.between(doc, 0, 4).stretches.isEmpty)
    }

    @Test func unitsOfUnknownIdentityLeaveItToTheText() {
        let a: [UInt16] = Array("ab".utf16)
        #expect(TextChanges.between((a, .unknown(2)), (a, UnitRuns(fresh: 1, count: 2)), authorship: Authorship()) == nil)
    }

    @Test(arguments: [
        ("", "", [String]()),
        ("a\nb\nc\n", "a\nb\nc\n", []),
        ("a\nb\nc\n", "a\nX\nc\n", ["-2:b\n@?", "+2:X\n@?"]),
        ("a\nc\n", "a\nb\nc\n", ["+2:b\n@?"]),
        ("a\nb\nc", "a\nc", ["-2:b\n@?"]),
        ("one\ntwo\nthree\n", "zero\none\nthree\nfour\n", ["+0:zero\n@?", "-9:two\n@?", "+15:four\n@?"]),
    ])
    func linesDifferAsTheShortestEditScriptSays(a: String, b: String, expected: [String]) {
        let changes = TextChanges.lines(from: Array(a.utf16), to: Array(b.utf16))
        #expect(!changes.byIdentity)
        #expect(Self.shown(changes) == expected)
    }

    /// Past the budget the middle is replaced whole: still right, only coarser.
    @Test func pastItsBudgetTheLineDiffReplacesTheMiddle() {
        let a = (0..<200).map { "line \($0)\n" }.joined(), b = (0..<200).map { $0 % 2 == 0 ? "line \($0)\n" : "other \($0)\n" }.joined()
        let fine = TextChanges.lines(from: Array(a.utf16), to: Array(b.utf16))
        let coarse = TextChanges.lines(from: Array(a.utf16), to: Array(b.utf16), budget: 100)
        #expect(fine.stretches.count == 200)
        #expect(coarse.stretches.count == 2)
        for changes in [fine, coarse] { #expect(Self.apply(changes, to: a) == b) }
    }

    /// Applies the stretches to `a` (each at its place in the later text): gives the later text.
    static func apply(_ changes: TextChanges, to a: String) -> String {
        var out: [UInt16] = []
        var rest = Array(a.utf16)[...]
        for s in changes.stretches {
            let keep = s.at - out.count
            if keep > 0 { out += rest.prefix(keep); rest = rest.dropFirst(keep) }
            if s.kind == .delete { rest = rest.dropFirst(s.text.utf16.count) } else { out += s.text.utf16 }
        }
        out += rest
        return String(decoding: out, as: UTF16.self)
    }
}
