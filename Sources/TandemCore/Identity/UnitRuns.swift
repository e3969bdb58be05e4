/// Which characters a sequence of UTF-16 units is, as runs of consecutive identities.
///
/// Every unit an edit inserts gets a new identity from the document's counter (one number per
/// unit, in order), and keeps it while it stays in the text; an undo or redo that puts a
/// deleted unit back restores its identity instead of making a new one (Yjs does the same by
/// restoring the deleted items). So "the same character" survives a delete and the undo of
/// that delete, which is what lets a group's author undo text someone else deleted and then
/// restored. Identity 0 means "not known" (text stored before identities were kept); such
/// units are never matched.
///
/// Typing forward gives consecutive identities, so a typed run is one `Run`.
public struct UnitRuns: Sendable, Hashable {
    /// `count` units: `first`, `first + 1`, …; or `count` units of unknown identity when
    /// `first == 0`.
    public struct Run: Sendable, Hashable {
        public var count: Int32
        public var first: Int64

        public init(count: Int32, first: Int64) {
            self.count = count
            self.first = first
        }
    }

    public internal(set) var runs: [Run] = []
    /// The number of units.
    public internal(set) var count = 0

    public init() {}

    public init(_ runs: [Run]) {
        for run in runs { append(run) }
    }

    /// `count` new units numbered from `first`.
    public init(fresh first: Int64, count: Int) {
        append(count: count, first: first)
    }

    /// `count` units of unknown identity.
    static func unknown(_ count: Int) -> UnitRuns {
        var runs = UnitRuns()
        runs.append(count: count, first: 0)
        return runs
    }

    public var isEmpty: Bool { count == 0 }

    mutating func append(count: Int, first: Int64) {
        var left = count
        var first = first
        while left > 0 {
            let n = min(left, Int(Int32.max))
            append(Run(count: Int32(n), first: first))
            left -= n
            if first != 0 { first += Int64(n) }
        }
    }

    mutating func append(_ run: Run) {
        guard run.count > 0 else { return }
        count += Int(run.count)
        if let last = runs.last, Self.joins(last, run) {
            runs[runs.count - 1].count += run.count
        } else {
            runs.append(run)
        }
    }

    mutating func append(_ other: UnitRuns) {
        for run in other.runs { append(run) }
    }

    /// The units `offset ..< offset + length`.
    func slice(_ offset: Int, _ length: Int) -> UnitRuns {
        var result = UnitRuns()
        guard length > 0 else { return result }
        var start = 0
        for run in runs {
            let end = start + Int(run.count)
            defer { start = end }
            guard end > offset else { continue }
            if start >= offset + length { break }
            let from = max(start, offset), to = min(end, offset + length)
            result.append(count: to - from, first: run.first == 0 ? 0 : run.first + Int64(from - start))
        }
        return result
    }

    /// The largest identity a stored run may reach: identities come from a counter that starts
    /// at 1, and the log packs a run's first identity above 21 bits of an Int64; anything larger
    /// in a stored snapshot is damage.
    static let maxIdentity: Int64 = (1 << 42) - 1

    /// Whether stored runs are well formed: positive counts, identities 0 or within range, and
    /// no run that continues the one before it (`append` would have joined them, so they
    /// would load as other runs than stored, and be written back as other bytes).
    static func valid(counts: [Int32], firsts: [Int64]) -> Bool {
        guard counts.count == firsts.count, zip(counts, firsts).allSatisfy({ count, first in
            count > 0 && first >= 0 && first <= maxIdentity
        }) else { return false }
        for i in counts.indices.dropFirst() where joins(Run(count: counts[i - 1], first: firsts[i - 1]), Run(count: counts[i], first: firsts[i])) {
            return false
        }
        return true
    }

    /// Whether `append` makes one run of `a` followed by `b`.
    static func joins(_ a: Run, _ b: Run) -> Bool {
        Int(a.count) + Int(b.count) <= Int(Int32.max) && (a.first == 0 ? b.first == 0 : (b.first != 0 && a.first + Int64(a.count) == b.first))
    }

    /// Bytes allocated by the runs.
    var allocatedBytes: Int { runs.capacity * MemoryLayout<Run>.stride }
}

/// Reads a `UnitRuns` front to back, a few units at a time.
struct UnitCursor {
    private let runs: [UnitRuns.Run]
    private var index = 0
    private var used = 0

    init(_ units: UnitRuns) { runs = units.runs }

    /// The next `n` units (fewer, of unknown identity, past the end: a bug elsewhere must not trap).
    mutating func take(_ n: Int, into result: inout UnitRuns) {
        var left = n
        while left > 0 {
            guard index < runs.count else { result.append(count: left, first: 0); return }
            let run = runs[index]
            let k = min(left, Int(run.count) - used)
            result.append(count: k, first: run.first == 0 ? 0 : run.first + Int64(used))
            used += k
            left -= k
            if used == Int(run.count) { index += 1; used = 0 }
        }
    }

    mutating func skip(_ n: Int) {
        var left = n
        while left > 0, index < runs.count {
            let k = min(left, Int(runs[index].count) - used)
            used += k
            left -= k
            if used == Int(runs[index].count) { index += 1; used = 0 }
        }
    }
}

extension UnitRuns: Codable {
    private enum CodingKeys: String, CodingKey { case count, first }

    /// Two packed columns, as the change log's.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let counts = try PackedCoding.decode(Int32.self, c, .count)
        let firsts = try PackedCoding.decode(Int64.self, c, .first)
        guard Self.valid(counts: counts, firsts: firsts) else { throw PackedCoding.corrupt(c, .count) }
        self.init(zip(counts, firsts).map { Run(count: $0, first: $1) })
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(PackedCoding.encode(runs.map(\.count)), forKey: .count)
        try c.encode(PackedCoding.encode(runs.map(\.first)), forKey: .first)
    }
}

extension Array {
    /// The index of the first element for which `belongs` is false, in an array where every
    /// element it holds for comes first.
    func partitionPoint(_ belongs: (Element) -> Bool) -> Int {
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if belongs(self[mid]) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
