import Testing
@testable import TandemCore

/// Authors kept apart from the document (`Authorship.Run.encode`), as a saved version keeps
/// them, and a diff by text that names them (`TextChanges.attributed`).
@Suite struct VersionAuthorsTests {
    static func runs(_ spec: [(Int, String?)]) -> [Authorship.Run] {
        var out: [Authorship.Run] = []
        var at = 0
        for (count, author) in spec {
            out.append(Authorship.Run(from: at, to: at + count, author: author))
            at += count
        }
        return out
    }

    @Test func runsReadBackAsWrittenWhateverTheirAuthorsAndLengths() {
        let cases: [[Authorship.Run]] = [
            [],
            Self.runs([(5, nil)]),
            Self.runs([(3, "ada"), (1, "bob"), (200, "ada"), (70_000, nil), (1, "s_😀 é\u{0}")]),
            Self.runs((0..<300).map { ($0 % 7 + 1, $0 % 3 == 0 ? nil : "session-\($0 % 5)") }),
        ]
        for runs in cases {
            #expect(Authorship.Run.decode(Authorship.Run.encode(runs)) == runs)
        }
    }

    @Test func bytesItDidNotWriteAreRefused() {
        let good = Authorship.Run.encode(Self.runs([(3, "ada"), (2, "bob")]))
        #expect(Authorship.Run.decode([]) == nil)
        #expect(Authorship.Run.decode([2] + good.dropFirst()) == nil)                  // another format
        #expect(Authorship.Run.decode(Array(good.dropLast())) == nil)                  // cut short
        #expect(Authorship.Run.decode(good + [0]) == nil)                              // trailing bytes
        #expect(Authorship.Run.decode([1, 0, 1, 1, 1]) == nil)                         // an author that is not there
        #expect(Authorship.Run.decode([1, 0, 1] + [UInt8](repeating: 0xff, count: 10) + [1, 0]) == nil)  // a length past Int
        #expect(Authorship.Run.decode([1, 0xff, 0xff, 0xff, 0x7f]) == nil)             // more authors than bytes
    }

    static func shown(_ changes: TextChanges) -> [String] {
        changes.stretches.map { "\($0.kind == .insert ? "+" : "-")\($0.at):\($0.text)@\($0.author ?? "?")" }
    }

    static func apply(_ changes: TextChanges, to a: String) -> String {
        var text = Array(a.utf16)
        for s in changes.stretches {
            let units = Array(s.text.utf16)
            if s.kind == .insert { text.insert(contentsOf: units, at: s.at) } else { text.removeSubrange(s.at..<s.at + units.count) }
        }
        return String(decoding: text, as: UTF16.self)
    }

    @Test func aDiffByTextNamesWhoWroteWhatEachSideSays() {
        let a = "one\ntwo\nthree\n", b = "one\nTWO!\nthree\nfour\n"
        let ua = Array(a.utf16), ub = Array(b.utf16)
        let byLines = TextChanges.lines(from: ua, to: ub)
        #expect(Self.shown(byLines) == ["-4:two\n@?", "+4:TWO!\n@?", "+15:four\n@?"])
        // a: "one\n" ada, "two\nthree\n" bob; b: "one\nTW" ada, "O!\nthree\n" cy, "four\n" ada.
        let authorsOfA = Self.runs([(4, "ada"), (10, "bob")])
        let authorsOfB = Self.runs([(6, "ada"), (9, "cy"), (5, "ada")])
        let named = byLines.attributed(from: ua, to: ub, authorsOfA: authorsOfA, authorsOfB: authorsOfB)
        #expect(Self.shown(named) == ["-4:two\n@bob", "+4:TW@ada", "+6:O!\n@cy", "+15:four\n@ada"])
        #expect(Self.apply(named, to: a) == b)
        #expect(named.inserted == byLines.inserted && named.deleted == byLines.deleted && !named.byIdentity)
        // A deletion that spans two writers is two pieces at one place, in order.
        let split = TextChanges.lines(from: ua, to: Array("three\n".utf16))
            .attributed(from: ua, to: Array("three\n".utf16), authorsOfA: authorsOfA, authorsOfB: nil)
        #expect(Self.shown(split) == ["-0:one\n@ada", "-0:two\n@bob"])
        #expect(Self.apply(split, to: a) == "three\n")
        // No runs on either side: as found.
        #expect(byLines.attributed(from: ua, to: ub, authorsOfA: nil, authorsOfB: nil) == byLines)
    }

    @Test func unitsAtSeveralRevisionsAreFoundInOnePassAsEachAlone() throws {
        let doc = Document(text: "abc", author: "ada")
        for i in 0..<6 {
            try doc.apply(ins(doc, "\(i)", at: i % 3), session: i % 2 == 0 ? "bob" : "cy", time: 0)
            if i % 2 == 1 { try doc.apply(del(doc, 0, 1), session: "ada", time: 0) }
        }
        let revisions = [3, 0, doc.revision, 7, 3]
        let together = try doc.unitRuns(atRevisions: revisions)
        #expect(together == (try revisions.map { r throws(DocumentError) in try doc.unitRuns(atRevision: r) }))
        #expect(throws: DocumentError.self) { try doc.unitRuns(atRevisions: [1, doc.revision + 1]) }
    }
}
