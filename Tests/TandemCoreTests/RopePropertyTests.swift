import Testing
@testable import TandemCore
import TandemTestSupport

/// Random text mixing ASCII, Latin, CJK, emoji (surrogate pairs) and combining marks.
enum RandomText {
    static let pieces = ["a", "b", "c", " ", "\n", "é", "中", "文", "😀", "🦊", "👍🏽", "e\u{301}", "xyz"]

    static func make(_ count: Int, using rng: inout SplitMix64) -> String {
        var text = ""
        for _ in 0..<count { text += pieces.randomElement(using: &rng)! }
        return text
    }

    /// UTF-16 offsets that do not split a surrogate pair.
    static func boundaries(of text: String) -> [Int] {
        var offsets = [0]
        var offset = 0
        for scalar in text.unicodeScalars {
            offset += scalar.utf16.count
            offsets.append(offset)
        }
        return offsets
    }
}

@Suite("Rope properties")
struct RopePropertyTests {
    /// Edits at any code unit, even inside pairs, against a `[UInt16]` reference; large
    /// enough that the tree has several levels, with inserts and removals big and small.
    @Test(arguments: 0..<8 as Range<UInt64>)
    func randomEditsMatchUnitArray(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let start = RandomText.make(Int.random(in: 0..<8_000, using: &rng), using: &rng)
        var rope = Rope(start)
        var reference = Array(start.utf16)
        for step in 0..<300 {
            let count = reference.count
            let lower = Int.random(in: 0...count, using: &rng)
            let upper: Int
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: upper = Int.random(in: lower...count, using: &rng)
            case 1: upper = lower
            default: upper = min(count, lower + Int.random(in: 0...5, using: &rng))
            }
            let text = Int.random(in: 0..<12, using: &rng) == 0
                ? RandomText.make(Int.random(in: 0..<6_000, using: &rng), using: &rng)
                : RandomText.make(Int.random(in: 0...3, using: &rng), using: &rng)
            switch step % 3 {
            case 0: rope.replace(lower..<upper, with: text)
            case 1: rope.remove(lower..<upper); rope.insert(text, at: lower)
            default: rope.insert(text, at: lower); rope.remove(lower + text.utf16.count..<upper + text.utf16.count)
            }
            reference.replaceSubrange(lower..<upper, with: text.utf16)
            #expect(rope.utf16Count == reference.count, "seed \(seed) step \(step)")
            #expect(rope.isBalanced, "seed \(seed) step \(step)")
            if step % 10 == 0 || reference.count < 3_000 {
                #expect(rope.utf16Units(0..<rope.utf16Count) == reference, "seed \(seed) step \(step)")
            }
            if !reference.isEmpty {
                let probe = Int.random(in: 0..<reference.count, using: &rng)
                #expect(rope.utf16Unit(at: probe) == reference[probe])
                let end = min(reference.count, probe + Int.random(in: 0..<3_000, using: &rng))
                #expect(rope.utf16Units(probe..<end) == Array(reference[probe..<end]))
                let splits = probe > 0 && UTF16.isLeadSurrogate(reference[probe - 1]) && UTF16.isTrailSurrogate(reference[probe])
                #expect(rope.isCharacterBoundary(probe) == !splits)
            }
        }
        #expect(rope.utf16Units(0..<rope.utf16Count) == reference)
    }

    /// Edits only at character boundaries, against Swift's own `String`.
    @Test(arguments: 100..<104 as Range<UInt64>)
    func randomEditsMatchString(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var reference = RandomText.make(Int.random(in: 0..<3_000, using: &rng), using: &rng)
        var rope = Rope(reference)
        for step in 0..<200 {
            let offsets = RandomText.boundaries(of: reference)
            let a = offsets.randomElement(using: &rng)!
            let b = offsets.randomElement(using: &rng)!
            let range = min(a, b)..<max(a, b)
            let text = RandomText.make(Int.random(in: 0...(step % 20 == 0 ? 2_000 : 4), using: &rng), using: &rng)
            let utf16 = reference.utf16
            let lower = utf16.index(utf16.startIndex, offsetBy: range.lowerBound)
            let upper = utf16.index(utf16.startIndex, offsetBy: range.upperBound)
            #expect(rope.substring(range) == String(reference[lower..<upper]))
            reference.replaceSubrange(lower..<upper, with: text)
            rope.replace(range, with: text)
            #expect(Array(rope.description.utf16) == Array(reference.utf16), "seed \(seed) step \(step)")
            // Same text, chunked differently.
            #expect(rope == Rope(reference))
            if !reference.isEmpty {
                var changed = rope
                changed.replace(0..<1, with: "\u{1}")
                #expect(changed != rope)
            }
        }
    }

    /// Copies taken along the way keep their text while the original changes.
    @Test func copiesAreIndependent() {
        var rng = SplitMix64(seed: 7)
        var rope = Rope(RandomText.make(5_000, using: &rng))
        var snapshots: [(Rope, [UInt16])] = []
        for step in 0..<200 {
            if step % 20 == 0 { snapshots.append((rope, rope.utf16Units(0..<rope.utf16Count))) }
            let lower = Int.random(in: 0...rope.utf16Count, using: &rng)
            let upper = min(rope.utf16Count, lower + Int.random(in: 0..<200, using: &rng))
            rope.replace(lower..<upper, with: RandomText.make(Int.random(in: 0..<100, using: &rng), using: &rng))
        }
        for (snapshot, units) in snapshots {
            #expect(snapshot.utf16Units(0..<snapshot.utf16Count) == units)
            #expect(snapshot.isBalanced)
        }
    }
}
