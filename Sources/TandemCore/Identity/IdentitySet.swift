/// Known identities as sorted, disjoint intervals: what the undo history looks up when a change
/// may put back units a group lost. Every operation costs the runs involved (and a logarithm),
/// never the units: a paste of megabytes put back by an undo is a few runs.
struct IdentitySet {
    /// Ascending, disjoint, not touching.
    private(set) var intervals: [Range<Int64>] = []

    init(_ units: UnitRuns) {
        var ranges: [Range<Int64>] = []
        for run in units.runs where run.first != 0 { ranges.append(run.first..<run.first + Int64(run.count)) }
        ranges.sort { $0.lowerBound < $1.lowerBound }
        for r in ranges {
            if let last = intervals.last, r.lowerBound <= last.upperBound {
                intervals[intervals.count - 1] = last.lowerBound..<max(last.upperBound, r.upperBound)
            } else {
                intervals.append(r)
            }
        }
    }

    var isEmpty: Bool { intervals.isEmpty }

    /// The parts of `range` in the set, ascending.
    func overlaps(_ range: Range<Int64>) -> [Range<Int64>] {
        var found: [Range<Int64>] = []
        var i = intervals.partitionPoint { $0.upperBound <= range.lowerBound }
        while i < intervals.count, intervals[i].lowerBound < range.upperBound {
            found.append(max(intervals[i].lowerBound, range.lowerBound)..<min(intervals[i].upperBound, range.upperBound))
            i += 1
        }
        return found
    }

    /// `units` without the identities in this set, in their order.
    func removing(from units: UnitRuns) -> UnitRuns {
        var result = UnitRuns()
        for run in units.runs {
            guard run.first != 0 else { result.append(run); continue }
            let range = run.first..<run.first + Int64(run.count)
            var at = range.lowerBound
            for gone in overlaps(range) {
                result.append(count: Int(gone.lowerBound - at), first: at)
                at = gone.upperBound
            }
            result.append(count: Int(range.upperBound - at), first: at)
        }
        return result
    }
}
