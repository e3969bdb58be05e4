/// Who inserted each unit of a document's text, kept beside the units' identities
/// (`UnitRuns`).
///
/// Every new unit's identity comes from the document's one counter, in order, so the author of
/// an identity is a step function of it: `firsts[i]` is the first identity that `authors[i]`
/// inserted, until the next mark. A mark is added only when an insertion's author differs from
/// the last mark's, so one person typing adds none, and two people typing in turn add one per
/// turn. A unit an undo or redo puts back keeps its identity, hence its author: text restored
/// by an undo is its first writer's, whoever undid. Identity 0 (text stored before identities
/// were kept) has no author, nor does text older than authorship (`firsts` starts later).
public struct Authorship: Sendable, Hashable {
    /// The first identity of each mark, increasing.
    public private(set) var firsts: [Int64] = []
    /// Each mark's author, an index into `names`; -1 for none.
    public private(set) var authors: [Int32] = []
    /// The authors, each once (sessions, as the change log names them).
    public private(set) var names: [String] = []
    private var index: [String: Int32] = [:]

    public init() {}

    /// Marks from their columns (a snapshot's); nil if they do not line up.
    public init?(firsts: [Int64], authors: [Int32], names: [String]) {
        guard firsts.count == authors.count, zip(firsts, firsts.dropFirst()).allSatisfy({ $0 < $1 }),
              authors.allSatisfy({ $0 >= -1 && Int($0) < names.count }), Set(names).count == names.count else { return nil }
        self.firsts = firsts
        self.authors = authors
        self.names = names
        for (i, name) in names.enumerated() { index[name] = Int32(i) }
    }

    public static func == (a: Authorship, b: Authorship) -> Bool {
        a.firsts == b.firsts && a.authors == b.authors && a.names == b.names
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(firsts)
        hasher.combine(authors)
    }

    /// `count` new units from identity `first` on were inserted by `author`.
    public mutating func inserted(first: Int64, count: Int, by author: String?) {
        guard count > 0, first > 0 else { return }
        let id: Int32
        if let author {
            if let known = index[author] { id = known } else {
                id = Int32(names.count)
                names.append(author)
                index[author] = id
            }
        } else {
            id = -1
        }
        if authors.last == id { return }
        if let last = firsts.last, last >= first { return }
        firsts.append(first)
        authors.append(id)
    }

    /// The author of the unit with `identity`; nil when unknown.
    public func author(of identity: Int64) -> String? {
        guard let mark = mark(at: identity), authors[mark] >= 0 else { return nil }
        return names[Int(authors[mark])]
    }

    /// The index of the last mark at or before `identity`; nil before the first.
    private func mark(at identity: Int64) -> Int? {
        guard identity > 0, let first = firsts.first, identity >= first else { return nil }
        var lo = 0, hi = firsts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if firsts[mid] <= identity { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// One stretch of text by one author (or of unknown author: nil).
    public struct Run: Sendable, Hashable {
        public var from: Int
        public var to: Int
        public var author: String?

        public init(from: Int, to: Int, author: String?) {
            self.from = from
            self.to = to
            self.author = author
        }
    }

    /// The authors of a text whose units are `runs`, in order, as UTF-16 ranges; neighbours of
    /// one author are one run.
    public func runs(of units: some Sequence<UnitRuns.Run>) -> [Run] {
        var out: [Run] = []
        var position = 0
        func add(_ count: Int, _ author: Int32) {
            let name = author >= 0 ? names[Int(author)] : nil
            if let last = out.last, last.author == name, last.to == position {
                out[out.count - 1].to += count
            } else {
                out.append(Run(from: position, to: position + count, author: name))
            }
            position += count
        }
        for run in units {
            var first = run.first
            var left = Int64(run.count)
            guard first > 0, !firsts.isEmpty else {
                add(Int(left), -1)
                continue
            }
            var m = mark(at: first) ?? -1
            while left > 0 {
                // Units before the first mark have no author.
                let author: Int32 = m >= 0 ? authors[m] : -1
                let end = m + 1 < firsts.count ? min(first + left, firsts[m + 1]) : first + left
                add(Int(end - first), author)
                left -= end - first
                first = end
                m += 1
            }
        }
        return out
    }

    /// Bytes allocated by the marks.
    public var allocatedBytes: Int {
        firsts.capacity * 8 + authors.capacity * 4 + names.reduce(names.capacity * 16) { $0 + $1.utf8.count }
    }
}

extension Authorship: Codable {
    private enum CodingKeys: String, CodingKey { case firsts, authors, names }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard let marks = Authorship(firsts: try PackedCoding.decode(Int64.self, c, .firsts), authors: try PackedCoding.decode(Int32.self, c, .authors),
                                     names: try c.decode([String].self, forKey: .names)) else {
            throw DecodingError.dataCorruptedError(forKey: .firsts, in: c, debugDescription: "the authorship's marks do not line up")
        }
        self = marks
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(PackedCoding.encode(firsts), forKey: .firsts)
        try c.encode(PackedCoding.encode(authors), forKey: .authors)
        try c.encode(names, forKey: .names)
    }
}
