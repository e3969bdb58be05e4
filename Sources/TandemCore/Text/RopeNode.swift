/// One node of the rope's B-tree.
///
/// Leaves hold up to `maxLeaf` UTF-16 code units; inner nodes hold up to `maxChildren`
/// children, all of the same height. Every node except the root keeps at least half of
/// its maximum, so the height stays logarithmic and a 10 MB text is 4 levels deep.
///
/// `@unchecked Sendable`: nodes are only mutated while uniquely referenced (copy on write,
/// checked with `isKnownUniquelyReferenced` on every step down), so a node that is shared,
/// and thus possibly visible to another thread, is never written to.
final class RopeNode: @unchecked Sendable {
    // 2048 units = 4 KiB: one insert moves at most 4 KiB, and a 100 KB text needs ~60 leaves.
    static let maxLeaf = 2048
    static let minLeaf = maxLeaf / 2
    static let maxChildren = 16
    static let minChildren = maxChildren / 2

    /// UTF-16 code units below this node.
    var count: Int
    /// 0 for a leaf.
    var height: Int
    /// Leaf storage (empty in inner nodes).
    var units: ContiguousArray<UInt16>
    /// Inner-node storage (empty in leaves).
    var children: ContiguousArray<RopeNode>
    /// `children[i].count`, kept beside the pointers so that a walk down the tree reads one
    /// small array per level instead of touching every child (a cache miss each in a big
    /// document).
    var counts: ContiguousArray<Int>

    init(leaf units: ContiguousArray<UInt16>) {
        self.count = units.count
        self.height = 0
        self.units = units
        self.children = []
        self.counts = []
    }

    init(height: Int, children: ContiguousArray<RopeNode>) {
        self.count = 0
        self.height = height
        self.units = []
        self.children = children
        self.counts = []
        recount()
    }

    /// Rebuilds `counts` and `count` after the children changed shape.
    func recount() {
        counts = ContiguousArray(children.lazy.map(\.count))
        var total = 0
        for size in counts { total += size }
        count = total
    }

    @inline(__always) var isLeaf: Bool { height == 0 }

    var isUnderfull: Bool {
        isLeaf ? units.count < Self.minLeaf : children.count < Self.minChildren
    }

    func copy() -> RopeNode {
        let node = RopeNode(leaf: units)
        node.height = height
        node.children = children
        node.counts = counts
        node.count = count
        return node
    }
}

// MARK: - Building

extension RopeNode {
    /// Cuts `units` into leaves of balanced size (each within min...max when there is more
    /// than one).
    static func leaves<C: Collection<UInt16>>(_ units: C) -> ContiguousArray<RopeNode> {
        let total = units.count
        let pieces = max(1, (total + maxLeaf - 1) / maxLeaf)
        var result = ContiguousArray<RopeNode>()
        result.reserveCapacity(pieces)
        var start = units.startIndex
        for piece in 0..<pieces {
            let size = total / pieces + (piece < total % pieces ? 1 : 0)
            let end = units.index(start, offsetBy: size)
            result.append(RopeNode(leaf: ContiguousArray(units[start..<end])))
            start = end
        }
        return result
    }

    /// Groups sibling nodes of one height into parents of balanced size.
    static func parents(of nodes: ContiguousArray<RopeNode>, height: Int) -> ContiguousArray<RopeNode> {
        let total = nodes.count
        let groups = max(1, (total + maxChildren - 1) / maxChildren)
        var result = ContiguousArray<RopeNode>()
        result.reserveCapacity(groups)
        var start = 0
        for group in 0..<groups {
            let size = total / groups + (group < total % groups ? 1 : 0)
            result.append(RopeNode(height: height, children: ContiguousArray(nodes[start..<start + size])))
            start += size
        }
        return result
    }

    /// A root over `nodes` (siblings of one height, at least one).
    static func root(over nodes: ContiguousArray<RopeNode>) -> RopeNode {
        var level = nodes
        while level.count > 1 {
            level = parents(of: level, height: level[0].height + 1)
        }
        return level[0]
    }
}

// MARK: - Reading

extension RopeNode {
    /// The leaf holding `offset` (in `0..<count`) and the offset inside it.
    @inline(__always)
    func leaf(containing offset: Int) -> (RopeNode, Int) {
        var node = self
        var offset = offset
        while !node.isLeaf {
            var index = 0
            let last = node.counts.count - 1
            while index < last {
                let size = node.counts[index]
                if offset < size { break }
                offset -= size
                index += 1
            }
            node = node.children[index]
        }
        return (node, offset)
    }

    func unit(at offset: Int) -> UInt16 {
        let (leaf, local) = leaf(containing: offset)
        return leaf.units[local]
    }

    /// Whether a cut at `offset` (in `1..<count`) separates a surrogate pair; one walk down
    /// unless the cut is at the start of a leaf.
    func splitsSurrogatePair(at offset: Int) -> Bool {
        let (leaf, local) = leaf(containing: offset)
        let after = leaf.units[local]
        guard UTF16.isTrailSurrogate(after) else { return false }
        let before = local > 0 ? leaf.units[local - 1] : unit(at: offset - 1)
        return UTF16.isLeadSurrogate(before)
    }

    /// Appends the units of `range` (relative to this node) to `buffer`.
    func appendUnits(_ range: Range<Int>, to buffer: inout ContiguousArray<UInt16>) {
        if isLeaf {
            buffer.append(contentsOf: units[range])
            return
        }
        var start = 0
        for (child, size) in zip(children, counts) {
            let end = start + size
            if end > range.lowerBound && start < range.upperBound {
                let lower = max(range.lowerBound, start) - start
                let upper = min(range.upperBound, end) - start
                child.appendUnits(lower..<upper, to: &buffer)
            }
            if end >= range.upperBound { break }
            start = end
        }
    }

    func forEachLeaf(_ body: (ContiguousArray<UInt16>) -> Void) {
        if isLeaf { body(units) } else { for child in children { child.forEachLeaf(body) } }
    }
}

// MARK: - Inserting

extension RopeNode {
    /// Inserts `new` (whose count is `newCount`) at `offset`. Self must be uniquely
    /// referenced. Returns the siblings that overflowed, to be placed right after self.
    func insert<C: Collection<UInt16>>(_ new: C, count newCount: Int, at offset: Int) -> ContiguousArray<RopeNode> {
        count += newCount
        if isLeaf {
            if units.count + newCount <= Self.maxLeaf {
                units.insert(contentsOf: new, at: offset)
                return []
            }
            var combined = ContiguousArray<UInt16>()
            combined.reserveCapacity(units.count + newCount)
            combined.append(contentsOf: units[..<offset])
            combined.append(contentsOf: new)
            combined.append(contentsOf: units[offset...])
            var pieces = Self.leaves(combined)
            units = pieces[0].units
            count = units.count
            pieces.removeFirst()
            return pieces
        }
        // Find the child; an offset on a boundary goes to the end of the left child, so
        // typing at the end of a chunk extends that chunk.
        var index = 0
        var local = offset
        let last = children.count - 1
        while index < last {
            let size = counts[index]
            if local <= size { break }
            local -= size
            index += 1
        }
        if !isKnownUniquelyReferenced(&children[index]) {
            children[index] = children[index].copy()
        }
        let overflow = children[index].insert(new, count: newCount, at: local)
        counts[index] = children[index].count
        if overflow.isEmpty { return [] }
        children.insert(contentsOf: overflow, at: index + 1)
        counts.insert(contentsOf: overflow.lazy.map(\.count), at: index + 1)
        if children.count <= Self.maxChildren { return [] }
        var groups = Self.parents(of: children, height: height)
        children = groups[0].children
        counts = groups[0].counts
        count = groups[0].count
        groups.removeFirst()
        return groups
    }
}

// MARK: - Replacing inside one leaf

extension RopeNode {
    /// The common small edit: when `range` lies in one leaf and the leaf stays between half
    /// full and full, edits it in place with one walk down. Returns false, with the text
    /// unchanged, when the edit needs the general path. Self must be uniquely referenced.
    func replaceInOneLeaf<C: Collection<UInt16>>(_ range: Range<Int>, with new: C, count newCount: Int, isRoot: Bool) -> Bool {
        if isLeaf {
            let size = units.count - range.count + newCount
            guard size <= Self.maxLeaf, isRoot || size >= Self.minLeaf else { return false }
            units.replaceSubrange(range, with: new)
            count = size
            return true
        }
        // An empty range on a boundary belongs to the end of the left child, like inserts.
        var index = 0
        var start = 0
        let last = counts.count - 1
        while index < last {
            let end = start + counts[index]
            if range.lowerBound < end || (range.isEmpty && range.lowerBound == end) { break }
            start = end
            index += 1
        }
        guard range.upperBound <= start + counts[index] else { return false }
        if !isKnownUniquelyReferenced(&children[index]) {
            children[index] = children[index].copy()
        }
        let local = range.lowerBound - start..<range.upperBound - start
        guard children[index].replaceInOneLeaf(local, with: new, count: newCount, isRoot: false) else { return false }
        let delta = newCount - range.count
        counts[index] += delta
        count += delta
        return true
    }
}

// MARK: - Removing

extension RopeNode {
    /// Removes `range` (relative to this node, not the whole node). Self must be uniquely
    /// referenced. Afterwards every descendant is at least half full, except inside a chain
    /// of only children, which the caller repairs by merging (or collapses at the root).
    func remove(_ range: Range<Int>) {
        count -= range.count
        if isLeaf {
            units.removeSubrange(range)
            return
        }
        var start = 0
        var index = 0
        var firstTouched = -1
        var coveredStart = -1
        var coveredCount = 0
        while index < children.count {
            let size = counts[index]
            let end = start + size
            if end > range.lowerBound {
                if start >= range.upperBound { break }
                if firstTouched < 0 { firstTouched = index }
                if range.lowerBound <= start && end <= range.upperBound {
                    if coveredStart < 0 { coveredStart = index }
                    coveredCount += 1
                } else {
                    if !isKnownUniquelyReferenced(&children[index]) {
                        children[index] = children[index].copy()
                    }
                    let lower = max(range.lowerBound, start) - start
                    let upper = min(range.upperBound, end) - start
                    children[index].remove(lower..<upper)
                    counts[index] = children[index].count
                }
            }
            start = end
            index += 1
        }
        if coveredCount > 0 {
            children.removeSubrange(coveredStart..<coveredStart + coveredCount)
            counts.removeSubrange(coveredStart..<coveredStart + coveredCount)
        }
        if children.isEmpty { return }
        // The partly cut children are now at firstTouched and firstTouched + 1.
        let low = min(max(firstTouched, 0), children.count - 1)
        if Self.repairUnderfull(&children, from: low, through: low + 1) {
            recount()
        }
    }

    /// Merges each underfull node in `from...through` with a neighbour, while there are
    /// at least two nodes.
    @discardableResult
    static func repairUnderfull(_ nodes: inout ContiguousArray<RopeNode>, from: Int, through: Int) -> Bool {
        var changed = false
        var index = max(from, 0)
        var stop = through
        while index <= stop && index < nodes.count && nodes.count > 1 {
            guard nodes[index].isUnderfull else { index += 1; continue }
            let left = index + 1 < nodes.count ? index : index - 1
            let merged = merge(nodes[left], nodes[left + 1])
            nodes.replaceSubrange(left...left + 1, with: merged)
            changed = true
            // Recheck from the merged node: it may still be underfull and need its other
            // neighbour.
            index = left
            stop = max(stop - (2 - merged.count), left + merged.count - 1)
        }
        return changed
    }

    /// Joins two siblings into one node, or two balanced ones when they do not fit in one.
    static func merge(_ a: RopeNode, _ b: RopeNode) -> ContiguousArray<RopeNode> {
        if a.isLeaf {
            var combined = ContiguousArray<UInt16>()
            combined.reserveCapacity(a.count + b.count)
            combined.append(contentsOf: a.units)
            combined.append(contentsOf: b.units)
            return leaves(combined)
        }
        var combined = ContiguousArray<RopeNode>()
        combined.reserveCapacity(a.children.count + b.children.count)
        combined.append(contentsOf: a.children)
        combined.append(contentsOf: b.children)
        let seam = a.children.count
        repairUnderfull(&combined, from: seam - 1, through: seam)
        return parents(of: combined, height: a.height)
    }
}

// MARK: - Checking

extension RopeNode {
    /// Verifies counts, equal leaf depth and fill levels; for tests.
    func checkInvariants(isRoot: Bool) -> Bool {
        if isLeaf {
            return count == units.count && children.isEmpty && units.count <= Self.maxLeaf
                && (isRoot || units.count >= Self.minLeaf)
        }
        var total = 0
        for (child, size) in zip(children, counts) {
            guard child.height == height - 1, child.count == size, child.checkInvariants(isRoot: false) else { return false }
            total += child.count
        }
        return total == count && counts.count == children.count && units.isEmpty && children.count <= Self.maxChildren
            && children.count >= (isRoot ? 2 : Self.minChildren)
    }
}
