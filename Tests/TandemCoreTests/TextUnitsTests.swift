import Testing
@testable import TandemCore
import TandemTestSupport

/// `TextUnits` edits its runs in place; a plain array of identities, one per unit, is the model
/// it must always agree with, for random splices, several at once, restored runs and unknowns.
@Suite struct TextUnitsTests {
    static func expand(_ units: UnitRuns) -> [Int64] {
        var all: [Int64] = []
        for run in units.runs { for k in 0..<Int64(run.count) { all.append(run.first == 0 ? 0 : run.first + k) } }
        return all
    }

    @Test(arguments: 1...20 as ClosedRange<UInt64>)
    func randomChangesKeepTheSameIdentitiesAsAPlainArray(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        var units = TextUnits(UnitRuns(fresh: 1, count: 40))
        var model = Array(Int64(1)...40)
        var next: Int64 = 41
        var graveyard: [Int64] = []
        for step in 0..<3000 {
            let length = model.count
            var splices: [TextOperation.Splice] = []
            var position = 0
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                guard position <= length else { break }
                let p = Int.random(in: position...min(length, position + 30), using: &rng)
                let d = Int.random(in: 0...min(length - p, Int.random(in: 0...7, using: &rng) == 0 ? 150 : 2), using: &rng)
                let n = Int.random(in: 0...(Bool.random(using: &rng) ? 2 : 70), using: &rng)
                guard d > 0 || n > 0 else { continue }
                splices.append(.init(position: p, deleted: d, inserted: String(repeating: "x", count: n)))
                position = p + d + 1
            }
            guard !splices.isEmpty else { continue }
            let op = try TextOperation(splices: splices, baseLength: length)
            let count = op.insertedCount
            var inserted: [Int64]
            let kind: InsertedUnits
            if Bool.random(using: &rng), graveyard.count >= count {
                // Some of what was deleted comes back, in one run or several, maybe unknown.
                inserted = Array(graveyard.suffix(count))
                graveyard.removeLast(count)
                var runs = UnitRuns()
                for id in inserted { runs.append(count: 1, first: id) }
                kind = .restoring(runs)
            } else {
                inserted = (0..<Int64(count)).map { next + $0 }
                kind = .fresh(first: next)
                // Others typing in between: this change's units continue no earlier run, so
                // runs pile up and the chunks split and merge.
                next += Int64(count) + Int64.random(in: 0...1, using: &rng)
            }
            var removed = UnitRuns()
            units.apply(op, inserted: kind) { removed.append($0) }
            // The model, splice by splice from the back.
            var expectedRemoved: [[Int64]] = []
            var offsets: [Int] = [], o = 0
            op.forEachSplice { offsets.append(o); o += $0.inserted.utf16.count }
            var k = offsets.count
            op.reverseForEachSplice { s in
                k -= 1
                expectedRemoved.append(Array(model[s.position..<s.position + s.deleted]))
                model.replaceSubrange(s.position..<s.position + s.deleted,
                                      with: inserted[offsets[k]..<offsets[k] + s.inserted.utf16.count])
            }
            let removedIDs: [Int64] = expectedRemoved.reversed().flatMap { $0 }
            #expect(Self.expand(removed) == removedIDs)
            graveyard += removedIDs
            #expect(units.count == model.count)
            if step % 50 == 0 || step == 2999 {
                #expect(Self.expand(units.all) == model)
                if Self.expand(units.all) != model { return }
            }
        }
        // The text grew to thousands of runs: many chunks, split and found through the tree.
        #expect(units.chunks.count > 10)
    }

    /// Lookups and removals go by runs: a run is cut exactly where the set's intervals are.
    @Test func anIdentitySetCutsRunsWhereItsIntervalsAre() {
        let set = IdentitySet(UnitRuns([.init(count: 3, first: 20), .init(count: 2, first: 5), .init(count: 1, first: 0), .init(count: 2, first: 7)]))
        #expect(set.intervals == [5..<9, 20..<23])
        #expect(set.overlaps(1..<22) == [5..<9, 20..<22])
        let left = set.removing(from: UnitRuns([.init(count: 30, first: 1), .init(count: 4, first: 0)]))
        #expect(Self.expand(left) == Array(1...4) + Array(9...19) + Array(23...30) + [0, 0, 0, 0])
    }
}
