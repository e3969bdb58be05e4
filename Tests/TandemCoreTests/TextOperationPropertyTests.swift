import Testing
@testable import TandemCore
import TandemTestSupport

/// Random operations on random small documents (ASCII, CJK, emoji), each case reproducible
/// from its seed (`SplitMix64`, from TandemTestSupport).
enum RandomOperation {
    /// An operation on `document` that never cuts a surrogate pair.
    static func make(on document: String, using rng: inout SplitMix64) -> TextOperation {
        let offsets = RandomText.boundaries(of: document)
        var components: [TextOperation.Component] = []
        var index = 0 // into offsets
        while index < offsets.count - 1 {
            let next = Int.random(in: index + 1...min(offsets.count - 1, index + 4), using: &rng)
            let span = offsets[next] - offsets[index]
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: components.append(.delete(span))
            case 1: components.append(.insert(RandomText.make(Int.random(in: 1...3, using: &rng), using: &rng)))
                    continue
            default: components.append(.retain(span))
            }
            index = next
        }
        if Bool.random(using: &rng) {
            components.append(.insert(RandomText.make(Int.random(in: 1...2, using: &rng), using: &rng)))
        }
        do {
            return try TextOperation(components)
        } catch {
            fatalError("generator built invalid components \(components): \(error)")
        }
    }

    static func document(using rng: inout SplitMix64) -> String {
        RandomText.make(Int.random(in: 0..<12, using: &rng), using: &rng)
    }
}

@Suite("TextOperation properties")
struct TextOperationPropertyTests {
    static let cases = 3_000

    @Test func transformConverges() throws {
        var rng = SplitMix64(seed: 1)
        for index in 0..<Self.cases {
            let document = RandomOperation.document(using: &rng)
            let a = RandomOperation.make(on: document, using: &rng)
            let b = RandomOperation.make(on: document, using: &rng)
            let (aPrime, bPrime) = try TextOperation.transform(a, b)
            let viaA = try bPrime.apply(to: a.apply(to: document))
            let viaB = try aPrime.apply(to: b.apply(to: document))
            #expect(Array(viaA.utf16) == Array(viaB.utf16), "case \(index): \(document.debugDescription) a=\(a.components) b=\(b.components)")
            #expect(try a.compose(bPrime) == b.compose(aPrime))
        }
    }

    /// The log transforms stale edits through changes known only by their shape; that must
    /// be the very same transform, ties included.
    @Test func transformThroughAShapeIsTheFullTransform() throws {
        var rng = SplitMix64(seed: 11)
        for index in 0..<Self.cases {
            let document = RandomOperation.document(using: &rng)
            let a = RandomOperation.make(on: document, using: &rng)
            let b = RandomOperation.make(on: document, using: &rng)
            var shape = TextOperation.Shape(baseLength: b.baseLength)
            b.forEachSplice { shape.append(position: $0.position, deleted: $0.deleted, inserted: $0.inserted.utf16.count) }
            #expect(try a.transformed(through: shape) == TextOperation.transform(a, b).0,
                    "case \(index): \(document.debugDescription) a=\(a.components) b=\(b.components)")
        }
        let two = try TextOperation.insert("xy", at: 0, length: 3)
        #expect(throws: OperationError.self) { try two.transformed(through: TextOperation.Shape(baseLength: 4)) }
    }

    /// The closed form for one-splice keystrokes, exhaustively on short texts: every insert
    /// and delete through every one-splice change (ties, touching and overlapping ranges
    /// included) is the full transform, or refuses; inserts never refuse.
    @Test func transformThroughOneSpliceIsTheFullTransform() throws {
        var checked = 0
        for length in 0...6 {
            let text = String("abcdef".prefix(length))
            var keystrokes: [TextOperation] = []
            for at in 0...length {
                keystrokes.append(try .insert("x", at: at, length: length))
                keystrokes.append(try .insert("yz", at: at, length: length))
                for to in at...length where to > at { keystrokes.append(try .delete(from: at, to: to, length: length)) }
            }
            for at in 0...length {
                for to in at...length {
                    for inserted in 0...2 where to > at || inserted > 0 {
                        let b = try TextOperation.replace(from: at, to: to, with: String(repeating: "Q", count: inserted), length: length)
                        for a in keystrokes {
                            let fast = a.transformed(throughSplice: (at, to - at, inserted), length: length)
                            let isInsert = a.components.contains { if case .insert = $0 { true } else { false } }
                            #expect(fast != nil || !isInsert, "an insert refused: \(text) a=\(a.components) b=\(b.components)")
                            if let fast {
                                #expect(fast == (try TextOperation.transform(a, b).0), "\(text) a=\(a.components) b=\(b.components)")
                                checked += 1
                            }
                        }
                    }
                }
            }
        }
        #expect(checked > 5_000)
        let nothing = try TextOperation.insert("", at: 1, length: 3)
        let through = try TextOperation.replace(from: 0, to: 2, with: "QQQ", length: 3)
        #expect(nothing.transformed(throughSplice: (0, 2, 3), length: 3) == (try TextOperation.transform(nothing, through).0))
        let stale = try TextOperation.insert("x", at: 0, length: 3)
        #expect(stale.transformed(throughSplice: (0, 0, 1), length: 4) == nil)
    }

    @Test func invertRoundTrips() throws {
        var rng = SplitMix64(seed: 2)
        for index in 0..<Self.cases {
            let document = RandomOperation.document(using: &rng)
            let op = RandomOperation.make(on: document, using: &rng)
            var rope = Rope(document)
            let inverse = try op.inverted(against: rope)
            #expect(inverse.baseLength == op.targetLength && inverse.targetLength == op.baseLength)
            try op.apply(to: &rope)
            try inverse.apply(to: &rope)
            #expect(Array(rope.description.utf16) == Array(document.utf16), "case \(index)")
            // Composed, they restore the text (but need not be the identity: deleted text is
            // put back, not recognised as unchanged).
            #expect(try Array(op.compose(inverse).apply(to: document).utf16) == Array(document.utf16))
        }
    }

    @Test func composeMatchesSequentialApply() throws {
        var rng = SplitMix64(seed: 3)
        for index in 0..<Self.cases {
            let document = RandomOperation.document(using: &rng)
            let first = RandomOperation.make(on: document, using: &rng)
            let middle = try first.apply(to: document)
            let second = RandomOperation.make(on: middle, using: &rng)
            let composed = try first.compose(second)
            let expected = try second.apply(to: middle)
            #expect(try Array(composed.apply(to: document).utf16) == Array(expected.utf16), "case \(index)")
            #expect(composed.baseLength == first.baseLength && composed.targetLength == second.targetLength)
        }
    }

    @Test func ropeAndStringApplyAgree() throws {
        var rng = SplitMix64(seed: 4)
        for _ in 0..<Self.cases {
            let document = RandomOperation.document(using: &rng)
            let op = RandomOperation.make(on: document, using: &rng)
            var rope = Rope(document)
            try op.apply(to: &rope)
            #expect(try Array(rope.description.utf16) == Array(op.apply(to: document).utf16))
            #expect(rope.utf16Count == op.targetLength)
        }
    }

    @Test func normalFormIsUnique() throws {
        var rng = SplitMix64(seed: 5)
        for _ in 0..<Self.cases {
            let document = RandomOperation.document(using: &rng)
            let op = RandomOperation.make(on: document, using: &rng)
            #expect(try TextOperation(op.components) == op)
            #expect(try TextOperation(splices: op.splices, baseLength: op.baseLength) == op)
            // No two neighbours of one kind, no delete directly before an insert.
            for (left, right) in zip(op.components, op.components.dropFirst()) {
                switch (left, right) {
                case (.retain, .retain), (.insert, .insert), (.delete, .delete), (.delete, .insert):
                    Issue.record("not normalized: \(op.components)")
                default: break
                }
            }
        }
    }

    /// A caret keeps its place in the text: the character right after it (when it
    /// survives) is still right after it.
    @Test func transformPositionFollowsText() throws {
        var rng = SplitMix64(seed: 6)
        for index in 0..<Self.cases {
            let document = RandomOperation.document(using: &rng)
            let op = RandomOperation.make(on: document, using: &rng)
            // Tag each code unit with its base offset by tracking which base units survive.
            var survivors: [Int: Int] = [:] // base offset -> result offset
            var base = 0, result = 0
            for component in op.components {
                switch component {
                case .retain(let n): for k in 0..<n { survivors[base + k] = result + k }; base += n; result += n
                case .insert(let text): result += text.utf16.count
                case .delete(let n): base += n
                }
            }
            for position in 0...document.utf16.count {
                let mapped = op.transformPosition(position)
                let sticky = op.transformPosition(position, stickToInsertsBefore: true)
                #expect((0...op.targetLength).contains(mapped) && sticky <= mapped, "case \(index)")
                if let after = survivors[position] {
                    #expect(mapped == after, "case \(index) position \(position)")
                }
                if position > 0, let before = survivors[position - 1] {
                    #expect(sticky == before + 1, "case \(index) position \(position)")
                }
            }
        }
    }

    @Test func changedRangeCoversInsertedText() throws {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<Self.cases {
            let document = RandomOperation.document(using: &rng)
            let op = RandomOperation.make(on: document, using: &rng)
            guard let range = op.changedRange else {
                #expect(op.isIdentity)
                continue
            }
            let result = Array(try op.apply(to: document).utf16)
            let before = Array(document.utf16)
            // Outside the range the text is the base text's head and tail.
            #expect(Array(result[..<range.lowerBound]) == Array(before[..<range.lowerBound]))
            let tail = result.count - range.upperBound
            #expect(Array(result[range.upperBound...]) == Array(before[(before.count - tail)...]))
        }
    }
}
