/// The identity of every UTF-16 unit of a document's current text, kept as each change
/// applies (see `UnitRuns`).
///
/// Chunks of at most `maxRuns` runs, so a change rebuilds one small chunk instead of moving
/// the runs of the whole text.
struct TextUnits: Sendable {
    private(set) var chunks: [UnitRuns] = [UnitRuns()]
    private(set) var count = 0

    static let maxRuns = 64

    init() {}

    init(_ units: UnitRuns) {
        chunks = []
        var chunk = UnitRuns()
        for run in units.runs {
            if chunk.runs.count == Self.maxRuns { chunks.append(chunk); chunk = UnitRuns() }
            chunk.append(run)
        }
        chunks.append(chunk)
        count = units.count
    }

    /// All the units, front to back.
    var all: UnitRuns {
        var result = UnitRuns()
        for chunk in chunks { result.append(chunk) }
        return result
    }

    /// Applies `op` (on the text these units are), the units it inserts being `inserted` in
    /// order; returns the units it deleted, in order.
    mutating func apply(_ op: TextOperation, inserted: UnitRuns) -> UnitRuns {
        var deleted: [UnitRuns] = []
        var offsets: [Int] = []
        var offset = 0
        op.forEachSplice { splice in
            offsets.append(offset)
            offset += splice.inserted.utf16.count
        }
        var k = offsets.count
        // Back to front, so every splice's base position is still where it was.
        op.reverseForEachSplice { splice in
            k -= 1
            let n = splice.inserted.utf16.count
            deleted.append(replace(at: splice.position, deleting: splice.deleted, with: inserted.slice(offsets[k], n)))
        }
        var result = UnitRuns()
        for d in deleted.reversed() { result.append(d) }
        return result
    }

    /// Replaces `deleting` units at `position` with `units`; returns the units removed.
    private mutating func replace(at position: Int, deleting: Int, with units: UnitRuns) -> UnitRuns {
        var i = 0, start = 0
        while i < chunks.count - 1, position >= start + chunks[i].count {
            start += chunks[i].count
            i += 1
        }
        let chunk = chunks[i]
        let local = min(position - start, chunk.count)
        let here = min(deleting, chunk.count - local)
        var removed = chunk.slice(local, here)
        var rebuilt = chunk.slice(0, local)
        rebuilt.append(units)
        rebuilt.append(chunk.slice(local + here, chunk.count - local - here))
        var left = deleting - here
        var j = i + 1
        while left > 0, j < chunks.count {
            let next = chunks[j]
            let d = min(left, next.count)
            removed.append(next.slice(0, d))
            left -= d
            if d == next.count { chunks.remove(at: j) } else { chunks[j] = next.slice(d, next.count - d); j += 1 }
        }
        count += units.count - removed.count
        if rebuilt.runs.count > Self.maxRuns {
            let split = TextUnits(rebuilt).chunks
            chunks.replaceSubrange(i...i, with: split)
        } else if rebuilt.isEmpty && chunks.count > 1 {
            chunks.remove(at: i)
        } else {
            chunks[i] = rebuilt
        }
        return removed
    }

    /// Where the units with identities among `wanted` are, ascending.
    func positions(of wanted: UnitRuns) -> [(position: Int, identity: Int64)] {
        var found: [(position: Int, identity: Int64)] = []
        guard wanted.hasKnown else { return found }
        var offset = 0
        for chunk in chunks {
            for run in chunk.runs {
                defer { offset += Int(run.count) }
                guard run.first != 0 else { continue }
                let end = run.first + Int64(run.count)
                for w in wanted.runs where w.first != 0 {
                    let lo = max(run.first, w.first), hi = min(end, w.first + Int64(w.count))
                    for identity in stride(from: lo, to: hi, by: 1) { found.append((offset + Int(identity - run.first), identity)) }
                }
            }
        }
        return found.sorted { $0.position < $1.position }
    }

    var allocatedBytes: Int { chunks.reduce(chunks.capacity * MemoryLayout<UnitRuns>.stride) { $0 + $1.allocatedBytes } }
}

extension TextOperation {
    func reverseForEachSplice(_ body: (Splice) -> Void) {
        switch storage {
        case .identity: break
        case .one(let splice): body(splice)
        case .many(let splices): for splice in splices.reversed() { body(splice) }
        }
    }

    /// The number of units it inserts.
    var insertedCount: Int {
        var n = 0
        forEachSplice { n += $0.inserted.utf16.count }
        return n
    }
}
