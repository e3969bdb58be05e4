import Testing
import TandemCore

/// The rules cut, copy, delete, paste and select follow to pick what they act on, and the
/// edit menu's canPerformAction, without the server around them.
@Suite struct EditingTargetTests {
    /// "a😀b cd": the emoji is units 1..<3, so 2 splits it; length 7.
    static func document(selection: Selection? = nil) throws -> Document {
        let doc = Document(text: "a😀b cd")
        if let selection { try doc.setSelection(selection, for: "s") }
        return doc
    }

    @Test func anExplicitRangeWinsOverTheSelection() throws {
        let doc = try Self.document(selection: Selection(anchor: 5, head: 4))
        #expect(try EditingTarget.range(explicit: 0..<3, session: "s", in: doc, needsText: true) == 0..<3)
        #expect(try EditingTarget.range(explicit: 0..<3, session: nil, in: doc, needsText: true) == 0..<3)
        #expect(try EditingTarget.range(explicit: nil, session: "s", in: doc, needsText: true) == 4..<5)
    }

    @Test func anExplicitRangeMustLieOnCharactersOfTheText() throws {
        let doc = try Self.document()
        #expect(throws: EditingTargetError.positionOutOfRange(position: 8, length: 7)) {
            try EditingTarget.range(explicit: 0..<8, session: nil, in: doc, needsText: false)
        }
        #expect(throws: EditingTargetError.splitsSurrogatePair(at: 2)) {
            try EditingTarget.range(explicit: 2..<4, session: nil, in: doc, needsText: false)
        }
        // The lower end is checked first.
        #expect(throws: EditingTargetError.splitsSurrogatePair(at: 2)) {
            try EditingTarget.range(explicit: 2..<9, session: nil, in: doc, needsText: false)
        }
    }

    /// Cut, copy and delete need text: an empty range is the caller's mistake, an empty
    /// selection the session's state; paste takes a caret.
    @Test func emptyTargetsWhereTextIsNeeded() throws {
        let doc = try Self.document(selection: Selection(caret: 3))
        #expect(throws: EditingTargetError.emptyRange(4..<4)) {
            try EditingTarget.range(explicit: 4..<4, session: "s", in: doc, needsText: true)
        }
        #expect(try EditingTarget.range(explicit: 4..<4, session: "s", in: doc, needsText: false) == 4..<4)
        #expect(throws: EditingTargetError.emptySelection) {
            try EditingTarget.range(explicit: nil, session: "s", in: doc, needsText: true)
        }
        #expect(try EditingTarget.range(explicit: nil, session: "s", in: doc, needsText: false) == 3..<3)
    }

    @Test func withoutARangeTheSessionAndItsSelectionAreNeeded() throws {
        let doc = try Self.document()
        #expect(throws: EditingTargetError.sessionRequired) {
            try EditingTarget.range(explicit: nil, session: nil, in: doc, needsText: false)
        }
        #expect(throws: EditingTargetError.noSelection) {
            try EditingTarget.range(explicit: nil, session: "s", in: doc, needsText: false)
        }
    }

    @Test func selectTakesAllARangeOrTheWordAroundTheCaret() throws {
        let doc = try Self.document(selection: Selection(caret: 6))
        #expect(try EditingTarget.selection(all: true, explicit: 1..<3, session: "s", in: doc) == Selection(anchor: 0, head: 7))
        #expect(try EditingTarget.selection(all: false, explicit: 1..<3, session: "s", in: doc) == Selection(anchor: 1, head: 3))
        #expect(try EditingTarget.selection(all: false, explicit: nil, session: "s", in: doc) == Selection(anchor: 5, head: 7))
        #expect(throws: EditingTargetError.splitsSurrogatePair(at: 2)) {
            try EditingTarget.selection(all: false, explicit: 0..<2, session: "s", in: doc)
        }
        // A selection that is not a caret, or a caret no word touches, stays as it is.
        try doc.setSelection(Selection(anchor: 6, head: 5), for: "s")
        #expect(try EditingTarget.selection(all: false, explicit: nil, session: "s", in: doc) == Selection(anchor: 6, head: 5))
        let spaced = Document(text: "a  b")
        try spaced.setSelection(Selection(caret: 2), for: "s")
        #expect(try EditingTarget.selection(all: false, explicit: nil, session: "s", in: spaced) == Selection(caret: 2))
        #expect(throws: EditingTargetError.noSelection) {
            try EditingTarget.selection(all: false, explicit: nil, session: "t", in: doc)
        }
    }

    @Test func anEmptyTextHasNothingToSelect() throws {
        let empty = Document(text: "")
        for (all, explicit) in [(true, nil), (false, 0..<0), (false, nil)] as [(Bool, Range<Int>?)] {
            #expect(throws: EditingTargetError.noText) {
                try EditingTarget.selection(all: all, explicit: explicit, session: "s", in: empty)
            }
        }
    }

    @Test func theMenuOffersWhatTheActionsWouldDo() {
        func can(_ selection: Selection?, session: Bool = true, accepts: Bool = true, secure: Bool = false,
                 text: Bool = true, strings: Bool = true) -> [Bool] {
            let a = EditActionAvailability(selection: selection, hasSession: session, acceptsChanges: accepts,
                                           secure: secure, hasText: text, pasteboardHasStrings: strings)
            return [a.cut, a.copy, a.paste, a.delete, a.select, a.selectAll]
        }
        let range = Selection(anchor: 3, head: 1), caret = Selection(caret: 2)
        //                                  cut    copy   paste  delete select selectAll
        #expect(can(range) ==              [true,  true,  true,  true,  true,  true])
        #expect(can(caret) ==              [false, false, true,  false, true,  true])
        // Select without a range starts from the selection: with none it is 409 no_selection.
        #expect(can(nil) ==                [false, false, false, false, false, true])
        #expect(can(nil, session: false) == [false, false, false, false, false, false])
        #expect(can(range, accepts: false) == [false, true, false, false, true, true])
        #expect(can(range, secure: true) == [false, false, true, true, true, true])
        #expect(can(range, text: false) == [true, true, true, true, false, false])
        #expect(can(range, strings: false) == [true, true, false, true, true, true])
    }
}
