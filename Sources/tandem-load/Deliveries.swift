/// Which subscriber read which change, indexed by revision − start revision: one bit per
/// subscriber makes a frame read twice a duplicate instead of a delivery, so one subscriber
/// reading a revision twice can never stand in for another that missed it.
///
/// The tables are raw allocations, not arrays: `record` runs once per change per subscriber,
/// and each array access there would pay a dynamic exclusivity check on the stored property
/// and a uniqueness check before the write (see docs/performance.md).
final class Deliveries {
    let startRevision: Int
    let subscribers: Int
    private let words: Int
    private var capacity = 0
    private var seen: UnsafeMutablePointer<UInt64>
    /// Distinct subscribers that read each revision.
    private var count: UnsafeMutablePointer<Int32>
    /// When the last of them read it (reads are handled in time order, so the last is the latest).
    private var latest: UnsafeMutablePointer<UInt64>
    private(set) var highestIndex = 0
    private(set) var duplicates = 0
    /// Change frames whose revision is not after the start (or absurdly far past it).
    private(set) var unexpected = 0
    static let maxRevisions = 1 << 26

    /// `capacity`: revisions to make room for at first (the tables double as needed).
    init(startRevision: Int, subscribers: Int, capacity initial: Int = 1 << 16) {
        self.startRevision = startRevision
        self.subscribers = subscribers
        words = max(1, (subscribers + 63) / 64)
        seen = .allocate(capacity: 0)
        count = .allocate(capacity: 0)
        latest = .allocate(capacity: 0)
        grow(to: max(64, initial))
    }

    deinit {
        seen.deallocate()
        count.deallocate()
        latest.deallocate()
    }

    func record(revision: Int, subscriber: Int, at t: UInt64) {
        let index = revision - startRevision
        guard index > 0, index < Self.maxRevisions else { unexpected += 1; return }
        if index >= capacity { grow(to: max(index + 1, capacity * 2)) }
        let word = seen + (index * words + subscriber >> 6)
        let bit = UInt64(1) << UInt64(subscriber & 63)
        if word.pointee & bit != 0 { duplicates += 1; return }
        word.pointee |= bit
        count[index] += 1
        latest[index] = t
        if index > highestIndex { highestIndex = index }
    }

    func deliveries(of revision: Int) -> Int {
        let index = revision - startRevision
        return index > 0 && index < capacity ? Int(count[index]) : 0
    }

    /// Whether subscriber `subscriber` read `revision`.
    func delivered(_ revision: Int, to subscriber: Int) -> Bool {
        let index = revision - startRevision
        guard index > 0 && index < capacity else { return false }
        return seen[index * words + subscriber >> 6] & (UInt64(1) << UInt64(subscriber & 63)) != 0
    }

    func latestArrival(of revision: Int) -> UInt64 {
        let index = revision - startRevision
        return index > 0 && index < capacity ? latest[index] : 0
    }

    private func grow(to n: Int) {
        guard n > capacity else { return }
        seen = Self.grown(seen, from: capacity * words, to: n * words)
        count = Self.grown(count, from: capacity, to: n)
        latest = Self.grown(latest, from: capacity, to: n)
        capacity = n
    }

    /// A zero-filled allocation of `new` elements beginning with the `old` of `p` (freed).
    private static func grown<T: FixedWidthInteger>(_ p: UnsafeMutablePointer<T>, from old: Int, to new: Int) -> UnsafeMutablePointer<T> {
        let q = UnsafeMutablePointer<T>.allocate(capacity: new)
        q.update(from: p, count: old)
        (q + old).initialize(repeating: 0, count: new - old)
        p.deallocate()
        return q
    }
}
