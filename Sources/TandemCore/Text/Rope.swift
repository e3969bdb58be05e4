/// Text storage for large documents, indexed in UTF-16 code units.
///
/// A B-tree of chunks of at most 2048 UTF-16 code units, with copy-on-write nodes: a copy
/// of a rope is O(1), and an edit copies only the nodes on its path. Position look-ups,
/// inserts and removals cost O(log n) plus the size of the inserted or removed text, so a
/// 10 MB document edits about as fast as a 10 KB one.
///
/// Offsets count UTF-16 code units, as JavaScript strings and `NSRange` do: "é" counts 1,
/// "中" counts 1, and "😀" (outside the Basic Multilingual Plane) counts 2, stored as a
/// surrogate pair. Chunks may end between the halves of a pair; the rope puts them back
/// together when it hands out text. Callers that must not cut a character in two ask
/// `isCharacterBoundary(_:)` first (`TextOperation.apply` does).
public struct Rope: Sendable {
    var root: RopeNode

    public init() {
        root = RopeNode(leaf: [])
    }

    public init(_ string: String) {
        root = RopeNode.root(over: RopeNode.leaves(ContiguousArray(string.utf16)))
    }

    /// The length in UTF-16 code units.
    public var utf16Count: Int { root.count }

    public var isEmpty: Bool { root.count == 0 }

    /// The code unit at `offset`, which must be in `0..<utf16Count`.
    public func utf16Unit(at offset: Int) -> UInt16 {
        precondition(offset >= 0 && offset < root.count, "Rope offset \(offset) out of 0..<\(root.count)")
        return root.unit(at: offset)
    }

    /// False when `offset` falls between the two halves of a surrogate pair (so text cut
    /// there would hold half an emoji), or lies outside `0...utf16Count`.
    ///
    /// It checks Unicode scalars, not grapheme clusters: cutting between a letter and its
    /// combining accent is allowed, as in `NSString`.
    public func isCharacterBoundary(_ offset: Int) -> Bool {
        guard offset > 0 && offset < root.count else { return offset == 0 || offset == root.count }
        return !root.splitsSurrogatePair(at: offset)
    }

    /// The text in `range` (UTF-16 offsets). A range that cuts a surrogate pair yields
    /// U+FFFD for the cut half.
    public func substring(_ range: Range<Int>) -> String {
        checkRange(range)
        var buffer = ContiguousArray<UInt16>()
        buffer.reserveCapacity(range.count)
        if !range.isEmpty { root.appendUnits(range, to: &buffer) }
        return String(utf16Units: buffer)
    }

    /// The code units of `range`, for callers that need them without decoding.
    public func utf16Units(_ range: Range<Int>) -> [UInt16] {
        checkRange(range)
        var buffer = ContiguousArray<UInt16>()
        buffer.reserveCapacity(range.count)
        if !range.isEmpty { root.appendUnits(range, to: &buffer) }
        return Array(buffer)
    }

    // MARK: Editing

    /// Replaces the text in `range` (UTF-16 offsets) with `string`.
    public mutating func replace(_ range: Range<Int>, with string: String) {
        checkRange(range)
        let units = string.utf16
        let count = units.count
        if range.isEmpty && count == 0 { return }
        makeRootUnique()
        if root.replaceInOneLeaf(range, with: units, count: count, isRoot: true) { return }
        if !range.isEmpty { removeUnchecked(range) }
        if count > 0 { insertUnchecked(units, at: range.lowerBound) }
    }

    public mutating func insert(_ string: String, at offset: Int) {
        replace(offset..<offset, with: string)
    }

    public mutating func remove(_ range: Range<Int>) {
        replace(range, with: "")
    }

    // MARK: Internals

    private func checkRange(_ range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= root.count,
                     "Rope range \(range) out of 0..<\(root.count)")
    }

    private mutating func makeRootUnique() {
        if !isKnownUniquelyReferenced(&root) { root = root.copy() }
    }

    private mutating func insertUnchecked(_ units: String.UTF16View, at offset: Int) {
        makeRootUnique()
        let overflow = root.insert(units, count: units.count, at: offset)
        if !overflow.isEmpty {
            var level: ContiguousArray<RopeNode> = [root]
            level.append(contentsOf: overflow)
            root = RopeNode.root(over: level)
        }
    }

    private mutating func removeUnchecked(_ range: Range<Int>) {
        if range.count == root.count {
            root = RopeNode(leaf: [])
            return
        }
        makeRootUnique()
        root.remove(range)
        while !root.isLeaf && root.children.count == 1 {
            root = root.children[0]
        }
    }

    /// Tree shape checks, for tests.
    var isBalanced: Bool { root.checkInvariants(isRoot: true) }
    var height: Int { root.height }
}

extension Rope: CustomStringConvertible {
    /// The whole text.
    public var description: String {
        var buffer = ContiguousArray<UInt16>()
        buffer.reserveCapacity(root.count)
        root.forEachLeaf { buffer.append(contentsOf: $0) }
        return String(utf16Units: buffer)
    }
}

extension Rope: Equatable {
    /// Equal when the UTF-16 code units are equal (no Unicode normalization, unlike
    /// `String ==`, so "é" precomposed differs from "e" + combining accent).
    public static func == (lhs: Rope, rhs: Rope) -> Bool {
        if lhs.root === rhs.root { return true }
        guard lhs.root.count == rhs.root.count else { return false }
        // Chunks may be cut differently, so walk both leaf lists side by side.
        var left: [ContiguousArray<UInt16>] = [], right: [ContiguousArray<UInt16>] = []
        lhs.root.forEachLeaf { left.append($0) }
        rhs.root.forEachLeaf { right.append($0) }
        var i = 0, j = 0, a = 0, b = 0 // leaf indices and offsets inside them
        while i < left.count && j < right.count {
            let n = min(left[i].count - a, right[j].count - b)
            if !left[i][a..<a + n].elementsEqual(right[j][b..<b + n]) { return false }
            a += n; b += n
            if a == left[i].count { i += 1; a = 0 }
            if b == right[j].count { j += 1; b = 0 }
        }
        return true
    }
}

extension Rope: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self.init(value) }
}
