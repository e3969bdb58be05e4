import Testing
@testable import TandemCore

/// A stale operation's transform: bounded work, checked against the text of its own base,
/// and the same result on a copy taken out of the lock as in place.
@Suite struct RebaseTests {
    /// A document of `length` units with `changes` one-character inserts at its start.
    static func busyDocument(length: Int, changes: Int) throws -> Document {
        let doc = Document(text: String(repeating: "a", count: length))
        for i in 0..<changes { try doc.apply(ins(doc, "b", at: 0), session: "other", time: Double(i)) }
        return doc
    }

    /// `splices` one-character inserts spread over a text of `length` units.
    static func manySplices(_ splices: Int, length: Int) throws -> TextOperation {
        var components: [TextOperation.Component] = []
        for _ in 0..<splices { components += [.insert("z"), .retain(length / splices)] }
        components.append(.retain(length - (length / splices) * splices))
        return try TextOperation(components.filter { if case .retain(0) = $0 { false } else { true } })
    }

    @Test func workPastTheBudgetIsRefusedAndChangesNothing() throws {
        let doc = try Self.busyDocument(length: 4000, changes: 2000)
        let op = try Self.manySplices(1000, length: 4000)
        #expect(Document.rebaseWork(op, base: 0, source: doc.rebaseSource()) > Document.maxRebaseWork)
        #expect(throws: DocumentError.rebaseTooLarge(splices: 1000, changes: 2000, limit: Document.maxRebaseWork)) {
            try doc.apply(op, base: 0, session: "late", time: 1e6)
        }
        #expect(doc.revision == 2000)
    }

    @Test func workWithinTheBudgetIsTransformed() throws {
        let doc = try Self.busyDocument(length: 4000, changes: 1000)
        let op = try Self.manySplices(900, length: 4000)
        #expect(Document.rebaseWork(op, base: 0, source: doc.rebaseSource()) <= Document.maxRebaseWork)
        try doc.apply(op, base: 0, session: "late", time: 1e6)
        #expect(doc.text.count == 4000 + 1000 + 900)
        #expect(doc.text.filter { $0 == "z" }.count == 900 && doc.text.filter { $0 == "b" }.count == 1000)
    }

    /// Rebasing on a copy, with the document changing meanwhile, then applying the result at
    /// the copy's revision gives what applying at the old base in place gives.
    @Test func aCopyRebasesAsTheDocumentDoes() throws {
        let a = try Self.busyDocument(length: 50, changes: 30)
        let b = try Self.busyDocument(length: 50, changes: 30)
        let op = try Self.manySplices(7, length: 50)
        let source = a.rebaseSource()
        try a.apply(ins(a, "late", at: 3), session: "other", time: 100)
        try b.apply(ins(b, "late", at: 3), session: "other", time: 100)
        let rebased = try Document.rebase(op, base: 0, source: source)
        try a.apply(rebased, base: source.revision, session: "s", time: 101)
        try b.apply(op, base: 0, session: "s", time: 101)
        #expect(a.text == b.text)
    }

    /// "a😀b": 😀 is two units at 1 and 2. Another session deletes it; a stale edit made on
    /// "a😀b" that inserts at 2 splits the pair in its own base, even though the position it
    /// maps to today is a boundary.
    @Test(arguments: [
        (2, 2, true), (1, 1, false), (3, 3, false), (1, 2, true), (2, 3, true), (1, 3, false), (0, 4, false),
    ])
    func aStaleEditMayNotSplitASurrogatePairOfItsBase(from: Int, to: Int, splits: Bool) throws {
        let doc = Document(text: "a😀b")
        try doc.apply(del(doc, 1, 3), session: "other", time: 1)
        let op = try TextOperation.replace(from: from, to: to, with: "x", length: 4)
        if splits {
            #expect(throws: DocumentError.invalidOperation(.splitsSurrogatePair(at: 2))) {
                try doc.apply(op, base: 0, session: "late", time: 2)
            }
            #expect(doc.text == "ab")
        } else {
            try doc.apply(op, base: 0, session: "late", time: 2)
        }
    }

    /// The pair's units are found where they went: moved by inserts before them, or kept
    /// in the text of the change that deleted them.
    @Test func unitsOfTheBaseAreFoundWhereverTheyWent() throws {
        let doc = Document(text: "😀😀")
        try doc.apply(ins(doc, "xyz", at: 0), session: "other", time: 1)   // "xyz😀😀": moved by 3
        try doc.apply(del(doc, 5, 7), session: "other", time: 2)           // the second 😀 deleted
        for (p, splits) in [(1, true), (2, false), (3, true), (4, false)] {
            let op = try TextOperation.insert("!", at: p, length: 4)
            if splits {
                #expect(throws: DocumentError.invalidOperation(.splitsSurrogatePair(at: p))) { try doc.apply(op, base: 0, session: "s", time: 3) }
            } else {
                #expect(throws: Never.self) { try doc.apply(op, base: 0, session: "s", time: 3) }
            }
        }
    }
}
