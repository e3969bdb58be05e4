/// What changed between two texts of one document: the stretches the later one inserted and
/// the stretches it deleted, each at its place in the later text, with who wrote it where
/// known.
///
/// Found two ways. By identity (`between(_:_:authorship:)`), when both texts' units are known
/// (`UnitRuns`): a unit of the later text whose identity the earlier lacks was inserted, and
/// one of the earlier text's the later lacks was deleted, so a change is exactly what people
/// did, even where the same letters were typed again. By text (`lines(from:to:)`) otherwise:
/// Myers' shortest edit script over lines, within a work budget, past which the texts'
/// common prefix and suffix are kept and the rest replaced.
public struct TextChanges: Sendable, Equatable {
    public struct Stretch: Sendable, Equatable {
        public enum Kind: String, Sendable { case insert, delete }
        public var kind: Kind
        /// Where it is in the later text (a deletion: where its text was, between the units
        /// around it).
        public var at: Int
        public var text: String
        public var author: String?

        public init(kind: Kind, at: Int, text: String, author: String?) {
            self.kind = kind
            self.at = at
            self.text = text
            self.author = author
        }
    }

    /// In order of `at`, a deletion before an insertion at the same place.
    public var stretches: [Stretch]
    /// Whether they were found by identity (else by text).
    public var byIdentity: Bool

    public var inserted: Int { stretches.reduce(0) { $0 + ($1.kind == .insert ? $1.text.utf16.count : 0) } }
    public var deleted: Int { stretches.reduce(0) { $0 + ($1.kind == .delete ? $1.text.utf16.count : 0) } }

    // MARK: By identity

    /// The changes from text `a` to text `b`, given their units; nil when either holds a unit
    /// of unknown identity (then only the text can tell).
    public static func between(_ a: (text: [UInt16], units: UnitRuns), _ b: (text: [UInt16], units: UnitRuns),
                               authorship: Authorship) -> TextChanges? {
        guard a.units.count == a.text.count, b.units.count == b.text.count,
              !a.units.runs.contains(where: { $0.first == 0 }), !b.units.runs.contains(where: { $0.first == 0 }) else { return nil }
        let inA = Intervals(a.units), inB = Intervals(b.units)
        var stretches: [Stretch] = []
        // Deletions: a's units that b lacks, placed after the b-position of the last unit
        // before them that b kept.
        var aPosition = 0, bAfterKept = 0
        for run in a.units.runs {
            var first = run.first, left = Int(run.count)
            while left > 0 {
                let (inside, length) = inB.membership(of: first, upTo: left)
                if inside {
                    bAfterKept = inB.position(of: first + Int64(length) - 1) + 1
                } else {
                    stretches.append(stretch(.delete, at: bAfterKept, text: a.text, from: aPosition, count: length,
                                             units: UnitRuns.Run(count: Int32(length), first: first), authorship: authorship))
                }
                aPosition += length
                first += Int64(length)
                left -= length
            }
        }
        var insertions: [Stretch] = []
        var bPosition = 0
        for run in b.units.runs {
            var first = run.first, left = Int(run.count)
            while left > 0 {
                let (inside, length) = inA.membership(of: first, upTo: left)
                if !inside {
                    insertions.append(stretch(.insert, at: bPosition, text: b.text, from: bPosition, count: length,
                                              units: UnitRuns.Run(count: Int32(length), first: first), authorship: authorship))
                }
                bPosition += length
                first += Int64(length)
                left -= length
            }
        }
        return TextChanges(stretches: merge(stretches, insertions), byIdentity: true)
    }

    /// One stretch per author within `count` units from `from`.
    private static func stretch(_ kind: Stretch.Kind, at: Int, text: [UInt16], from: Int, count: Int,
                                units: UnitRuns.Run, authorship: Authorship) -> Stretch {
        let runs = authorship.runs(of: [units])
        let author = runs.count == 1 ? runs[0].author : runs.max { $0.to - $0.from < $1.to - $1.from }?.author
        return Stretch(kind: kind, at: at, text: String(decoding: text[from..<from + count], as: UTF16.self), author: author)
    }

    /// Neighbouring stretches of one kind and author at one place are one; deletions before
    /// insertions at the same place.
    private static func merge(_ deletions: [Stretch], _ insertions: [Stretch]) -> [Stretch] {
        var out: [Stretch] = []
        var i = 0, k = 0
        while i < deletions.count || k < insertions.count {
            let next: Stretch
            if k == insertions.count || (i < deletions.count && deletions[i].at <= insertions[k].at) {
                next = deletions[i]; i += 1
            } else {
                next = insertions[k]; k += 1
            }
            if var last = out.last, last.kind == next.kind, last.author == next.author,
               next.kind == .delete ? last.at == next.at : last.at + last.text.utf16.count == next.at {
                last.text += next.text
                out[out.count - 1] = last
            } else {
                out.append(next)
            }
        }
        return out
    }

    /// A text's identities as sorted intervals, with each one's position in the text.
    private struct Intervals {
        var firsts: [Int64] = []
        var counts: [Int] = []
        var positions: [Int] = []

        init(_ units: UnitRuns) {
            var position = 0
            var entries: [(first: Int64, count: Int, position: Int)] = []
            for run in units.runs {
                entries.append((run.first, Int(run.count), position))
                position += Int(run.count)
            }
            entries.sort { $0.first < $1.first }
            for e in entries {
                firsts.append(e.first); counts.append(e.count); positions.append(e.position)
            }
        }

        /// The last interval starting at or before `identity`.
        private func interval(at identity: Int64) -> Int? {
            var lo = 0, hi = firsts.count - 1
            guard hi >= 0, firsts[0] <= identity else { return nil }
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if firsts[mid] <= identity { lo = mid } else { hi = mid - 1 }
            }
            return lo
        }

        /// Whether `identity` is in the text, and for how many of the `upTo` identities from
        /// it that stays so.
        func membership(of identity: Int64, upTo: Int) -> (inside: Bool, length: Int) {
            if let i = interval(at: identity), identity < firsts[i] + Int64(counts[i]) {
                return (true, min(upTo, Int(firsts[i] + Int64(counts[i]) - identity)))
            }
            let next = (interval(at: identity).map { $0 + 1 } ?? 0)
            let gap = next < firsts.count ? Int(firsts[next] - identity) : upTo
            return (false, min(upTo, gap))
        }

        /// The position of a unit known to be in the text.
        func position(of identity: Int64) -> Int {
            let i = interval(at: identity)!
            return positions[i] + Int(identity - firsts[i])
        }
    }

    // MARK: By text

    /// Most steps of the lines' shortest edit script explored before giving up on it.
    public static let lineDiffBudget = 4_000_000

    /// The changes from `a` to `b`, by lines (each with its line feed): Myers' shortest edit
    /// script, within `lineDiffBudget` steps; past it, the common prefix and suffix are kept
    /// and everything between replaced. No authors: the text alone does not say.
    public static func lines(from a: [UInt16], to b: [UInt16], budget: Int = lineDiffBudget) -> TextChanges {
        let la = lineRanges(a), lb = lineRanges(b)
        var ids: [ArraySlice<UInt16>: Int] = [:]
        func tokens(_ text: [UInt16], _ ranges: [Range<Int>]) -> [Int] {
            ranges.map { r in
                let line = text[r]
                if let id = ids[line] { return id }
                let id = ids.count
                ids[line] = id
                return id
            }
        }
        let ta = tokens(a, la), tb = tokens(b, lb)
        let script = myers(ta, tb, budget: budget) ?? fallbackScript(ta, tb)
        // Walk the script: runs of deleted a-lines and inserted b-lines between kept ones.
        var stretches: [Stretch] = []
        var bPosition = 0
        for step in script {
            switch step {
            case .keep(_, let j):
                bPosition = lb[j].upperBound
            case .delete(let i):
                let text = String(decoding: a[la[i]], as: UTF16.self)
                if var last = stretches.last, last.kind == .delete, last.at == bPosition {
                    last.text += text
                    stretches[stretches.count - 1] = last
                } else {
                    stretches.append(Stretch(kind: .delete, at: bPosition, text: text, author: nil))
                }
            case .insert(let j):
                let text = String(decoding: b[lb[j]], as: UTF16.self)
                if var last = stretches.last, last.kind == .insert, last.at + last.text.utf16.count == lb[j].lowerBound {
                    last.text += text
                    stretches[stretches.count - 1] = last
                } else {
                    stretches.append(Stretch(kind: .insert, at: lb[j].lowerBound, text: text, author: nil))
                }
                bPosition = lb[j].upperBound
            }
        }
        return TextChanges(stretches: stretches, byIdentity: false)
    }

    static func lineRanges(_ text: [UInt16]) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var start = 0
        for (i, u) in text.enumerated() where u == 0x0A {
            out.append(start..<i + 1)
            start = i + 1
        }
        if start < text.count { out.append(start..<text.count) }
        return out
    }

    enum Step: Equatable {
        case keep(Int, Int)
        case delete(Int)
        case insert(Int)
    }

    /// Keeps the common prefix and suffix, replaces the middle.
    static func fallbackScript(_ a: [Int], _ b: [Int]) -> [Step] {
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        var steps: [Step] = (0..<prefix).map { .keep($0, $0) }
        steps += (prefix..<a.count - suffix).map { .delete($0) }
        steps += (prefix..<b.count - suffix).map { .insert($0) }
        steps += (0..<suffix).map { .keep(a.count - suffix + $0, b.count - suffix + $0) }
        return steps
    }

    /// Myers' O(ND) shortest edit script (deletions before insertions where both fit); nil
    /// past `budget` steps of the search.
    static func myers(_ a: [Int], _ b: [Int], budget: Int) -> [Step]? {
        let n = a.count, m = b.count
        let maxD = n + m
        if maxD == 0 { return [] }
        let offset = maxD + 1
        var v = [Int](repeating: 0, count: 2 * maxD + 3)
        // Each step keeps the part of v it started from (2d + 3 entries): the walk back
        // needs them, and they add up to d², not d × (n + m).
        var trace: [[Int]] = []
        var work = 0
        var found = false
        outer: for d in 0...maxD {
            trace.append(Array(v[(offset - d - 1)...(offset + d + 1)]))
            work += 2 * d + 3
            var k = -d
            while k <= d {
                var x: Int
                if k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]) {
                    x = v[offset + k + 1]
                } else {
                    x = v[offset + k - 1] + 1
                }
                var y = x - k
                while x < n, y < m, a[x] == b[y] { x += 1; y += 1; work += 1 }
                v[offset + k] = x
                work += 1
                if x >= n && y >= m { found = true; break outer }
                k += 2
            }
            if work > budget { return nil }
        }
        guard found else { return nil }
        // Walk back through the trace.
        var steps: [Step] = []
        var x = n, y = m
        for d in stride(from: trace.count - 1, through: 0, by: -1) {
            let vd = trace[d]
            func at(_ k: Int) -> Int { vd[k + d + 1] }
            let k = x - y
            let prevK: Int
            if k == -d || (k != d && at(k - 1) < at(k + 1)) { prevK = k + 1 } else { prevK = k - 1 }
            let prevX = at(prevK)
            let prevY = prevX - prevK
            while x > prevX && y > prevY {
                x -= 1; y -= 1
                steps.append(.keep(x, y))
            }
            if d > 0 {
                if x == prevX { y -= 1; steps.append(.insert(y)) } else { x -= 1; steps.append(.delete(x)) }
            }
        }
        return steps.reversed()
    }
}

// MARK: Authors for changes found by text

extension TextChanges {
    /// These changes from `a` to `b` with authors where runs say who wrote each text: an
    /// insertion split where `b`'s authors change, a deletion where `a`'s do (each piece at the
    /// same place, in order, so applying them still turns `a` into `b`). A nil side keeps its
    /// stretches as they are.
    public func attributed(from a: [UInt16], to b: [UInt16], authorsOfA: [Authorship.Run]?, authorsOfB: [Authorship.Run]?) -> TextChanges {
        guard authorsOfA != nil || authorsOfB != nil else { return self }
        var out: [Stretch] = []
        // Where the next stretch's text sits in `a`, less where it sits in `b`.
        var shift = 0
        for s in stretches {
            let count = s.text.utf16.count
            switch s.kind {
            case .insert:
                Self.split(s, text: b, start: s.at, count: count, runs: authorsOfB, into: &out)
                shift -= count
            case .delete:
                Self.split(s, text: a, start: s.at + shift, count: count, runs: authorsOfA, into: &out)
                shift += count
            }
        }
        return TextChanges(stretches: out, byIdentity: byIdentity)
    }

    private static func split(_ s: Stretch, text: [UInt16], start: Int, count: Int, runs: [Authorship.Run]?, into out: inout [Stretch]) {
        guard let runs, start >= 0, start + count <= text.count, count > 0 else { return out.append(s) }
        // The first run that ends past `start`.
        var lo = 0, hi = runs.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if runs[mid].to <= start { lo = mid + 1 } else { hi = mid }
        }
        var position = start
        let end = start + count
        var r = lo
        while position < end {
            var upTo = end
            var author: String?
            if r < runs.count {
                if runs[r].from > position {
                    upTo = min(end, runs[r].from)
                } else {
                    (upTo, author) = (min(end, runs[r].to), runs[r].author)
                    r += 1
                }
            }
            guard upTo > position else { continue }
            let piece = String(decoding: text[position..<upTo], as: UTF16.self)
            let at = s.kind == .insert ? position : s.at
            if let last = out.last, last.kind == s.kind, last.author == author,
               s.kind == .delete ? last.at == at : last.at + last.text.utf16.count == at,
               position > start {
                out[out.count - 1].text += piece
            } else {
                out.append(Stretch(kind: s.kind, at: at, text: piece, author: author))
            }
            position = upTo
        }
    }
}
