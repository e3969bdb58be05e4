/// Which subscriber read which change, indexed by revision − start revision: one bit per
/// subscriber makes a frame read twice a duplicate instead of a delivery, so one subscriber
/// reading a revision twice can never stand in for another that missed it.
final class Deliveries {
    let startRevision: Int
    let subscribers: Int
    private let words: Int
    private var seen: [UInt64] = []
    /// Distinct subscribers that read each revision.
    private(set) var count: [Int32] = []
    /// When the last of them read it (reads are handled in time order, so the last is the latest).
    private(set) var latest: [UInt64] = []
    private(set) var highestIndex = 0
    private(set) var duplicates = 0
    /// Change frames whose revision is not after the start (or absurdly far past it).
    private(set) var unexpected = 0
    static let maxRevisions = 1 << 26

    init(startRevision: Int, subscribers: Int) {
        self.startRevision = startRevision
        self.subscribers = subscribers
        words = max(1, (subscribers + 63) / 64)
        grow(to: 1 << 16)
    }

    func record(revision: Int, subscriber: Int, at t: UInt64) {
        let index = revision - startRevision
        guard index > 0, index < Self.maxRevisions else { unexpected += 1; return }
        if index >= count.count { grow(to: max(index + 1, count.count * 2)) }
        let word = index * words + subscriber >> 6
        let bit = UInt64(1) << UInt64(subscriber & 63)
        if seen[word] & bit != 0 { duplicates += 1; return }
        seen[word] |= bit
        count[index] += 1
        latest[index] = t
        if index > highestIndex { highestIndex = index }
    }

    func deliveries(of revision: Int) -> Int {
        let index = revision - startRevision
        return index > 0 && index < count.count ? Int(count[index]) : 0
    }

    func latestArrival(of revision: Int) -> UInt64 {
        let index = revision - startRevision
        return index > 0 && index < latest.count ? latest[index] : 0
    }

    private func grow(to n: Int) {
        let more = n - count.count
        guard more > 0 else { return }
        count.append(contentsOf: repeatElement(0, count: more))
        latest.append(contentsOf: repeatElement(0, count: more))
        seen.append(contentsOf: repeatElement(0, count: more * words))
    }
}
