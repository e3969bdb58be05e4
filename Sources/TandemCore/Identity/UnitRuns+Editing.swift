/// Edits of a `UnitRuns` in place, for `TextUnits`: a keystroke changes one run or splits one,
/// without building new arrays.
extension UnitRuns {
    /// The run holding unit `offset` and how far into it; `(runs.count, 0)` at the end.
    func locate(_ offset: Int) -> (index: Int, within: Int) {
        var start = 0
        for (i, run) in runs.enumerated() {
            let end = start + Int(run.count)
            if offset < end { return (i, offset - start) }
            start = end
        }
        return (runs.count, 0)
    }

    /// Splits the run holding unit `offset` so that a run starts there; returns that index.
    private mutating func split(at offset: Int) -> Int {
        let (i, within) = locate(offset)
        guard within > 0 else { return i }
        let run = runs[i]
        runs[i].count = Int32(within)
        runs.insert(Run(count: run.count - Int32(within), first: run.first == 0 ? 0 : run.first + Int64(within)), at: i + 1)
        return i + 1
    }

    /// Removes up to `length` units from `offset` (as many as there are); gives each removed
    /// run to `removed`, in order, and returns how many units it removed.
    mutating func removeUnits(at offset: Int, _ length: Int, removed: (Run) -> Void) -> Int {
        guard length > 0, offset < count else { return 0 }
        let (i, within) = locate(offset)
        let run = runs[i]
        // Most deletes fall inside one run: trimmed or split in place.
        if within + length <= Int(run.count) {
            removed(Run(count: Int32(length), first: run.first == 0 ? 0 : run.first + Int64(within)))
            let after = Int(run.count) - within - length
            if within == 0 && after == 0 {
                runs.remove(at: i)
                if i > 0, i < runs.count { mergeIfContiguous(i - 1) }
            } else if within == 0 {
                runs[i] = Run(count: Int32(after), first: run.first == 0 ? 0 : run.first + Int64(length))
            } else if after == 0 {
                runs[i].count = Int32(within)
            } else {
                runs[i].count = Int32(within)
                runs.insert(Run(count: Int32(after), first: run.first == 0 ? 0 : run.first + Int64(within + length)), at: i + 1)
            }
            count -= length
            return length
        }
        let start = split(at: offset)
        var left = length, end = start
        while left > 0, end < runs.count {
            let r = runs[end]
            if Int(r.count) <= left {
                removed(r)
                left -= Int(r.count)
                end += 1
            } else {
                removed(Run(count: Int32(left), first: r.first))
                runs[end] = Run(count: r.count - Int32(left), first: r.first == 0 ? 0 : r.first + Int64(left))
                left = 0
            }
        }
        runs.removeSubrange(start..<end)
        if start > 0, start < runs.count { mergeIfContiguous(start - 1) }
        count -= length - left
        return length - left
    }

    /// Inserts `count` units numbered from `first` (0: unknown) at `offset`.
    mutating func insertUnits(count n: Int, first: Int64, at offset: Int) {
        guard n > 0 else { return }
        let (i, within) = locate(offset)
        // Typing forward: the new units continue the run that ends here.
        if within == 0, i > 0, Int(runs[i - 1].count) + n <= Int(Int32.max),
           runs[i - 1].first == 0 ? first == 0 : (first != 0 && runs[i - 1].first + Int64(runs[i - 1].count) == first) {
            runs[i - 1].count += Int32(n)
            count += n
            if i < runs.count { mergeIfContiguous(i - 1) }
            return
        }
        var added = UnitRuns()
        added.append(count: n, first: first)
        insertUnits(added, at: offset)
    }

    /// Inserts `units` at `offset`.
    mutating func insertUnits(_ units: UnitRuns, at offset: Int) {
        guard !units.isEmpty else { return }
        let i = split(at: offset)
        runs.insert(contentsOf: units.runs, at: i)
        count += units.count
        let last = i + units.runs.count - 1
        if last + 1 < runs.count { mergeIfContiguous(last) }
        if i > 0 { mergeIfContiguous(i - 1) }
    }

    /// Joins runs `i` and `i + 1` when the second continues the first.
    private mutating func mergeIfContiguous(_ i: Int) {
        let a = runs[i], b = runs[i + 1]
        guard Int(a.count) + Int(b.count) <= Int(Int32.max),
              a.first == 0 ? b.first == 0 : (b.first != 0 && a.first + Int64(a.count) == b.first) else { return }
        runs[i].count += b.count
        runs.remove(at: i + 1)
    }
}
