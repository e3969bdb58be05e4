import Testing
@testable import TandemCore

@Suite("TextOperation")
struct TextOperationTests {
    // MARK: Building and normalizing

    @Test func componentsRoundTrip() throws {
        let op = try TextOperation([.retain(5), .insert("hello"), .delete(3), .retain(10)])
        #expect(op.components == [.retain(5), .insert("hello"), .delete(3), .retain(10)])
        #expect(op.baseLength == 18)
        #expect(op.targetLength == 20)
        #expect(!op.isIdentity)
    }

    @Test func normalizationMergesAndOrders() throws {
        let messy = try TextOperation([.retain(2), .retain(3), .delete(1), .insert("a"), .delete(2), .insert("b"), .retain(1)])
        #expect(messy.components == [.retain(5), .insert("ab"), .delete(3), .retain(1)])
        let tidy = try TextOperation([.retain(5), .insert("ab"), .delete(3), .retain(1)])
        #expect(messy == tidy)
        #expect(messy.hashValue == tidy.hashValue)
        #expect(messy.splices == [.init(position: 5, deleted: 3, inserted: "ab")])
    }

    @Test func invalidComponentsThrow() {
        #expect(throws: OperationError.self) { try TextOperation([.retain(0)]) }
        #expect(throws: OperationError.self) { try TextOperation([.retain(-1)]) }
        #expect(throws: OperationError.self) { try TextOperation([.delete(0)]) }
        #expect(throws: OperationError.self) { try TextOperation([.insert("")]) }
        do {
            _ = try TextOperation([.retain(1), .insert("")])
            Issue.record("expected an error")
        } catch {
            guard case .invalidComponent(let reason) = error else { Issue.record("wrong error \(error)"); return }
            #expect(reason.contains("empty"))
        }
    }

    @Test func identity() throws {
        let op = TextOperation.identity(length: 7)
        #expect(op.isIdentity)
        #expect(op.components == [.retain(7)])
        #expect(op.baseLength == 7 && op.targetLength == 7)
        #expect(op.splices.isEmpty)
        #expect(op.changedRange == nil)
        #expect(try TextOperation([.retain(7)]) == op)
        #expect(TextOperation.identity(length: 0).components == [])
        #expect(try TextOperation([]).isIdentity)
        #expect(try op.apply(to: "abcdefg") == "abcdefg")
    }

    @Test func conveniences() throws {
        #expect(try TextOperation.insert("xy", at: 2, length: 5).components == [.retain(2), .insert("xy"), .retain(3)])
        #expect(try TextOperation.delete(from: 1, to: 4, length: 5).components == [.retain(1), .delete(3), .retain(1)])
        #expect(try TextOperation.replace(from: 0, to: 5, with: "new", length: 5).components == [.insert("new"), .delete(5)])
        #expect(try TextOperation.delete(from: 2, to: 2, length: 5).isIdentity)
        #expect(try TextOperation.insert("", at: 0, length: 0).isIdentity)
    }

    @Test func convenienceErrors() {
        #expect(throws: OperationError.positionOutOfRange(position: 6, length: 5)) {
            try TextOperation.insert("x", at: 6, length: 5)
        }
        #expect(throws: OperationError.positionOutOfRange(position: -1, length: 5)) {
            try TextOperation.delete(from: -1, to: 2, length: 5)
        }
        #expect(throws: OperationError.positionOutOfRange(position: 9, length: 5)) {
            try TextOperation.replace(from: 1, to: 9, with: "x", length: 5)
        }
        #expect(throws: OperationError.self) { try TextOperation.delete(from: 3, to: 2, length: 5) }
    }

    // MARK: Splices

    @Test func splicesRoundTrip() throws {
        let splices: [TextOperation.Splice] = [
            .init(position: 1, deleted: 0, inserted: "A"),
            .init(position: 3, deleted: 2, inserted: ""),
            .init(position: 8, deleted: 1, inserted: "😀"),
        ]
        let op = try TextOperation(splices: splices, baseLength: 10)
        #expect(op.splices == splices)
        #expect(op.components == [.retain(1), .insert("A"), .retain(2), .delete(2), .retain(3), .insert("😀"), .delete(1), .retain(1)])
        #expect(try TextOperation(op.components) == op)
        #expect(try op.apply(to: "0123456789") == "0A12567😀9")
    }

    @Test func touchingSplicesMergeAndEmptyOnesVanish() throws {
        let op = try TextOperation(splices: [
            .init(position: 0, deleted: 0, inserted: ""),
            .init(position: 2, deleted: 1, inserted: "x"),
            .init(position: 3, deleted: 1, inserted: "y"),
        ], baseLength: 5)
        #expect(op.splices == [.init(position: 2, deleted: 2, inserted: "xy")])
    }

    @Test func spliceErrors() {
        #expect(throws: OperationError.positionOutOfRange(position: 6, length: 5)) {
            try TextOperation(splices: [.init(position: 4, deleted: 2, inserted: "")], baseLength: 5)
        }
        #expect(throws: OperationError.positionOutOfRange(position: -2, length: 5)) {
            try TextOperation(splices: [.init(position: -2, deleted: 0, inserted: "a")], baseLength: 5)
        }
        #expect(throws: OperationError.self) {
            try TextOperation(splices: [.init(position: 3, deleted: 0, inserted: "a"), .init(position: 1, deleted: 0, inserted: "b")], baseLength: 5)
        }
        #expect(throws: OperationError.self) {
            try TextOperation(splices: [.init(position: 1, deleted: 3, inserted: ""), .init(position: 2, deleted: 0, inserted: "b")], baseLength: 5)
        }
        #expect(throws: OperationError.self) {
            try TextOperation(splices: [.init(position: 1, deleted: -1, inserted: "")], baseLength: 5)
        }
        #expect(throws: OperationError.self) { try TextOperation(splices: [], baseLength: -1) }
    }

    @Test func changedRange() throws {
        #expect(try TextOperation.insert("abc", at: 2, length: 5).changedRange == 2..<5)
        #expect(try TextOperation.delete(from: 1, to: 4, length: 5).changedRange == 1..<1)
        #expect(try TextOperation.replace(from: 1, to: 4, with: "😀", length: 5).changedRange == 1..<3)
        // Two splices: first insert lands at 0..<2, the second after a deletion shifts left.
        let op = try TextOperation([.insert("ab"), .retain(2), .delete(3), .retain(1), .insert("Z"), .retain(1)])
        #expect(try op.apply(to: "0123456") == "ab015Z6")
        #expect(op.changedRange == 0..<6)
    }

    // MARK: Apply

    /// (document, operation, expected result)
    static let applyCases: [(String, [TextOperation.Component], String)] = [
        ("", [.insert("hello")], "hello"),
        ("hello", [.delete(5)], ""),
        ("hello", [.retain(5), .insert(" world")], "hello world"),
        ("hello world", [.retain(6), .insert("there"), .delete(5)], "hello there"),
        ("abc", [.insert(">"), .retain(1), .delete(1), .retain(1), .insert("<")], ">ac<"),
        ("a😀b", [.retain(1), .delete(2), .retain(1)], "ab"),
        ("a😀b", [.retain(3), .insert("中"), .retain(1)], "a😀中b"),
        ("中文", [.retain(1), .insert("🦊"), .retain(1)], "中🦊文"),
        ("👍🏽!", [.delete(4), .insert("ok"), .retain(1)], "ok!"),
        ("e\u{301}", [.retain(1), .delete(1)], "e"),
    ]

    @Test(arguments: applyCases)
    func applyTable(document: String, components: [TextOperation.Component], expected: String) throws {
        let op = try TextOperation(components)
        #expect(try op.apply(to: document) == expected)
        var rope = Rope(document)
        try op.apply(to: &rope)
        #expect(rope.description == expected)
        #expect(op.targetLength == expected.utf16.count)
        // Invert restores the original.
        let inverse = try op.inverted(against: Rope(document))
        #expect(try inverse.apply(to: expected) == document)
        #expect(try inverse.inverted(against: Rope(expected)) == op)
    }

    @Test func invertChecksLikeApply() throws {
        let op = try TextOperation.delete(from: 1, to: 3, length: 4)
        #expect(throws: OperationError.lengthMismatch(expected: 4, actual: 3)) { try op.inverted(against: "abc") }
        #expect(throws: OperationError.lengthMismatch(expected: 4, actual: 5)) { try op.inverted(against: Rope("abcde")) }
        // "a😀b": offset 2 is between the two halves of the emoji.
        #expect(throws: OperationError.splitsSurrogatePair(at: 2)) {
            try TextOperation.delete(from: 0, to: 2, length: 4).inverted(against: "a😀b")
        }
        #expect(throws: OperationError.splitsSurrogatePair(at: 2)) {
            try TextOperation.insert("x", at: 2, length: 4).inverted(against: "a😀b")
        }
        #expect(try op.inverted(against: "a😀b") == TextOperation.insert("😀", at: 1, length: 2))
    }

    @Test func applyLengthMismatchChangesNothing() throws {
        let op = try TextOperation([.retain(10), .insert("x")])
        var rope = Rope("twelve chars")
        #expect(throws: OperationError.lengthMismatch(expected: 10, actual: 12)) { try op.apply(to: &rope) }
        #expect(rope.description == "twelve chars")
        #expect(throws: OperationError.lengthMismatch(expected: 10, actual: 12)) { try op.apply(to: "twelve chars") }
    }

    @Test func applySurrogateSplitChangesNothing() throws {
        let document = "a😀b😀c"
        // Second splice is bad, first would be fine: nothing may change.
        let op = try TextOperation([.insert("X"), .retain(2), .insert("!"), .retain(5)])
        var rope = Rope(document)
        #expect(throws: OperationError.splitsSurrogatePair(at: 2)) { try op.apply(to: &rope) }
        #expect(rope.description == document)
        #expect(throws: OperationError.splitsSurrogatePair(at: 2)) { try op.apply(to: document) }

        let deleteHalf = try TextOperation([.retain(1), .delete(1), .retain(5)])
        #expect(throws: OperationError.splitsSurrogatePair(at: 2)) { try deleteHalf.apply(to: &rope) }
        let deleteOtherHalf = try TextOperation([.retain(5), .delete(1), .retain(1)])
        #expect(throws: OperationError.splitsSurrogatePair(at: 5)) { try deleteOtherHalf.apply(to: &rope) }
        #expect(rope.description == document)
    }

    // MARK: Compose

    @Test func composeSequence() throws {
        let first = try TextOperation.insert("hello", at: 0, length: 0)
        let second = try TextOperation.insert(" world", at: 5, length: 5)
        let third = try TextOperation.delete(from: 0, to: 6, length: 11)
        let all = try first.compose(second).compose(third)
        #expect(all.components == [.insert("world")])
        #expect(try all.apply(to: "") == "world")
    }

    @Test func composeCancelsInsertThenDelete() throws {
        let typed = try TextOperation.insert("abc", at: 1, length: 2)
        let erased = try TextOperation.delete(from: 1, to: 4, length: 5)
        #expect(try typed.compose(erased).isIdentity)
    }

    @Test func composeWithIdentity() throws {
        let op = try TextOperation.replace(from: 1, to: 2, with: "x", length: 3)
        #expect(try op.compose(.identity(length: 3)) == op)
        #expect(try TextOperation.identity(length: 3).compose(op) == op)
    }

    @Test func composeErrors() throws {
        let op = try TextOperation.insert("x", at: 0, length: 3)
        #expect(throws: OperationError.lengthMismatch(expected: 3, actual: 4)) { try op.compose(.identity(length: 3)) }
        // The second operation cuts the emoji inserted by the first one.
        let emoji = try TextOperation.insert("😀", at: 0, length: 0)
        let cut = try TextOperation([.retain(1), .delete(1)])
        #expect(throws: OperationError.splitsSurrogatePair(at: 1)) { try emoji.compose(cut) }
    }

    // MARK: Transform

    @Test func transformConcurrentInserts() throws {
        let base = "abc"
        let a = try TextOperation.insert("X", at: 1, length: 3)
        let b = try TextOperation.insert("Y", at: 1, length: 3)
        let (aPrime, bPrime) = try TextOperation.transform(a, b)
        // Tie: a's insert goes first.
        #expect(try bPrime.apply(to: a.apply(to: base)) == "aXYbc")
        #expect(try aPrime.apply(to: b.apply(to: base)) == "aXYbc")
        #expect(try b.transformed(against: a, priority: false) == bPrime)
        #expect(try a.transformed(against: b, priority: true) == aPrime)
        #expect(try a.transform(against: b, priority: true) == aPrime)
        // With priority the other way round, b's text goes first.
        let bFirst = try a.transformed(against: b, priority: false)
        #expect(try bFirst.apply(to: b.apply(to: base)) == "aYXbc")
    }

    @Test func transformOverlappingDeletes() throws {
        let base = "0123456789"
        let a = try TextOperation.delete(from: 2, to: 6, length: 10)
        let b = try TextOperation.replace(from: 4, to: 8, with: "ab", length: 10)
        let (aPrime, bPrime) = try TextOperation.transform(a, b)
        let viaA = try bPrime.apply(to: a.apply(to: base))
        let viaB = try aPrime.apply(to: b.apply(to: base))
        #expect(viaA == viaB)
        #expect(viaA == "01ab89")
    }

    @Test func transformErrors() throws {
        let a = try TextOperation.insert("x", at: 0, length: 3)
        let b = try TextOperation.insert("x", at: 0, length: 4)
        #expect(throws: OperationError.lengthMismatch(expected: 3, actual: 4)) { try TextOperation.transform(a, b) }
    }

    @Test func transformWithIdentity() throws {
        let a = try TextOperation.insert("x", at: 1, length: 3)
        let (aPrime, idPrime) = try TextOperation.transform(a, .identity(length: 3))
        #expect(aPrime == a)
        #expect(idPrime == .identity(length: 4))
        let (idPrime2, aPrime2) = try TextOperation.transform(.identity(length: 3), a)
        #expect(aPrime2 == a)
        #expect(idPrime2 == .identity(length: 4))
    }

    // MARK: Positions

    @Test func transformPosition() throws {
        let insert = try TextOperation.insert("abc", at: 2, length: 5)
        #expect(insert.transformPosition(0) == 0)
        #expect(insert.transformPosition(1) == 1)
        #expect(insert.transformPosition(2) == 5)
        #expect(insert.transformPosition(2, stickToInsertsBefore: true) == 2)
        #expect(insert.transformPosition(3) == 6)
        #expect(insert.transformPosition(5) == 8)
        #expect(insert.transformPosition(99) == 8)
        #expect(insert.transformPosition(-4) == 0)

        let delete = try TextOperation.delete(from: 1, to: 4, length: 6)
        #expect(delete.transformPosition(0) == 0)
        #expect(delete.transformPosition(1) == 1)
        #expect(delete.transformPosition(2) == 1)
        #expect(delete.transformPosition(4) == 1)
        #expect(delete.transformPosition(5) == 2)

        let replace = try TextOperation.replace(from: 1, to: 3, with: "XYZ", length: 4)
        #expect(replace.transformPosition(2) == 4)
        #expect(replace.transformPosition(1, stickToInsertsBefore: true) == 1)
        #expect(replace.transformPosition(4) == 5)
    }

    // MARK: Errors

    @Test func errorDescriptionsSayWhatIsWrong() {
        #expect(OperationError.lengthMismatch(expected: 10, actual: 12).description.contains("operation spans 10 characters but the document has 12"))
        #expect(OperationError.positionOutOfRange(position: 7, length: 5).description.contains("position 7"))
        #expect(OperationError.splitsSurrogatePair(at: 3).description.contains("position 3"))
        #expect(OperationError.invalidComponent("retain count must be positive").description.contains("retain count must be positive"))
    }

    @Test func memoryLayout() {
        // One splice is stored inline: no array, so typing allocates nothing.
        #expect(MemoryLayout<TextOperation>.size <= 48)
        #expect(MemoryLayout<TextOperation.Splice>.size == 32)
    }
}
