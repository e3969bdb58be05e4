/// The identity of every UTF-16 unit of a document's current text, kept as each change
/// applies (see `UnitRuns`).
///
/// Chunks of `maxRuns` runs (split when one grows to twice that), so a change edits one small
/// chunk in place instead of moving the runs of the whole text; the chunk holding a position
/// is found through a Fenwick tree of their lengths, in a logarithm of their number (people
/// typing in turn make a run per keystroke, so a busy document has very many runs).
struct TextUnits: Sendable {
    private(set) var chunks: [UnitRuns] = [UnitRuns()]
    private(set) var count = 0
    /// Fenwick tree over the chunks' unit counts, 1-based.
    private var tree: [Int] = [0, 0]

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
        rebuildTree()
    }

    // MARK: the tree of chunk lengths

    private mutating func rebuildTree() {
        tree = [Int](repeating: 0, count: chunks.count + 1)
        for i in chunks.indices {
            var k = i + 1
            tree[k] += chunks[i].count
            let parent = k + (k & -k)
            if parent < tree.count { tree[parent] += tree[k] }
            k = parent
        }
    }

    private mutating func grow(_ i: Int, by delta: Int) {
        var k = i + 1
        while k < tree.count { tree[k] += delta; k += k & -k }
    }

    /// The number of whole chunks before `target` units (`inclusive`: before or at), and
    /// where the chunk after them starts.
    private func descend(to target: Int, inclusive: Bool) -> (index: Int, start: Int) {
        var k = 0, sum = 0
        var step = 1
        while step * 2 < tree.count { step *= 2 }
        while step > 0 {
            let next = k + step
            if next < tree.count, inclusive ? sum + tree[next] <= target : sum + tree[next] < target {
                k = next
                sum += tree[next]
            }
            step /= 2
        }
        return (k, sum)
    }

    /// All the units, front to back.
    var all: UnitRuns {
        var result = UnitRuns()
        for chunk in chunks { result.append(chunk) }
        return result
    }

    /// Applies `op` (on the text these units are), the units it inserts being `inserted`;
    /// gives `removed` the runs of units it deleted, in order.
    mutating func apply(_ op: TextOperation, inserted: InsertedUnits, removed: (UnitRuns.Run) -> Void) {
        switch op.storage {
        case .identity: break
        case .one(let s):
            replace(at: s.position, deleting: s.deleted, inserting: inserted, offset: 0, count: s.inserted.utf16.count, removed: removed)
        case .many(let splices):
            var offsets: [Int] = []
            var offset = 0
            for s in splices { offsets.append(offset); offset += s.inserted.utf16.count }
            // Back to front, so every splice's base position is still where it was.
            var deleted: [UnitRuns] = []
            for (k, s) in splices.enumerated().reversed() {
                var runs = UnitRuns()
                replace(at: s.position, deleting: s.deleted, inserting: inserted, offset: offsets[k], count: s.inserted.utf16.count) {
                    runs.append($0)
                }
                deleted.append(runs)
            }
            for runs in deleted.reversed() { for run in runs.runs { removed(run) } }
        }
    }

    /// Applies `op` with units given as runs; returns the units it deleted.
    mutating func apply(_ op: TextOperation, inserted: UnitRuns) -> UnitRuns {
        var deleted = UnitRuns()
        apply(op, inserted: .restoring(inserted)) { deleted.append($0) }
        return deleted
    }

    /// The chunk holding unit `position` (`inserting`: the chunk a unit inserted at `position`
    /// joins, the one ending there), and where it starts.
    private func chunk(at position: Int, inserting: Bool) -> (index: Int, start: Int) {
        if inserting && position == 0 { return (0, 0) }
        let found = descend(to: position, inclusive: !inserting)
        // Past the end (or an empty text): the last chunk.
        guard found.index < chunks.count else { return (chunks.count - 1, count - chunks[chunks.count - 1].count) }
        return found
    }

    /// Replaces `deleting` units at `position` with `count` units of `inserted` from `offset`.
    private mutating func replace(at position: Int, deleting: Int, inserting inserted: InsertedUnits, offset: Int, count n: Int,
                                  removed: (UnitRuns.Run) -> Void) {
        if deleting > 0 {
            var (i, start) = chunk(at: position, inserting: false)
            var local = position - start, left = deleting
            var removedChunk = false
            while left > 0, i < chunks.count {
                let gone = chunks[i].removeUnits(at: local, left, removed: removed)
                left -= gone
                count -= gone
                if chunks[i].isEmpty && chunks.count > 1 {
                    chunks.remove(at: i)
                    removedChunk = true
                } else {
                    if !removedChunk { grow(i, by: -gone) }
                    i += 1
                }
                local = 0
            }
            if removedChunk { rebuildTree() }
        }
        guard n > 0 else { return }
        let (i, start) = chunk(at: position, inserting: true)
        switch inserted {
        case .fresh(let first):
            chunks[i].insertUnits(count: n, first: first + Int64(offset), at: position - start)
        case .restoring(let runs):
            chunks[i].insertUnits(runs.slice(offset, n), at: position - start)
        }
        count += n
        if chunks[i].runs.count > 2 * Self.maxRuns {
            let halves = TextUnits(chunks[i]).chunks
            chunks.replaceSubrange(i...i, with: halves)
            rebuildTree()
        } else {
            grow(i, by: n)
        }
    }

    /// Where the units with identities among `wanted` are, ascending.
    func positions(of wanted: UnitRuns) -> [(position: Int, identity: Int64)] {
        var found: [(position: Int, identity: Int64)] = []
        let set = IdentitySet(wanted)
        guard !set.isEmpty else { return found }
        var offset = 0
        for chunk in chunks {
            for run in chunk.runs {
                defer { offset += Int(run.count) }
                guard run.first != 0 else { continue }
                for identities in set.overlaps(run.first..<run.first + Int64(run.count)) {
                    for identity in identities { found.append((offset + Int(identity - run.first), identity)) }
                }
            }
        }
        return found
    }

    var allocatedBytes: Int { chunks.reduce(chunks.capacity * MemoryLayout<UnitRuns>.stride) { $0 + $1.allocatedBytes } }
}

/// The units a change inserts: new ones numbered from the document's counter, or the ones an
/// undo or redo puts back.
enum InsertedUnits {
    case fresh(first: Int64)
    case restoring(UnitRuns)
}
