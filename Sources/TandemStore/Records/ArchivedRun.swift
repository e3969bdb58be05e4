/// Consecutive changes of a document kept after they left the server's memory, so that
/// `GET …/edits` can still page through them: `first...last`, with a payload the server
/// encodes (the store only counts its bytes). Runs written by different nodes of a cluster
/// may overlap; a run starting where a kept one starts is not stored again.
public struct ArchivedRun: Sendable, Hashable {
    public var documentID: String
    public var first: Int
    public var last: Int
    public var payload: [UInt8]

    public init(documentID: String, first: Int, last: Int, payload: [UInt8]) {
        self.documentID = documentID
        self.first = first
        self.last = last
        self.payload = payload
    }
}

/// What `DocumentStore.archivedRuns` reads, worked out the same way by every store from the
/// runs' bounds alone, before any payload is read.
public enum ArchiveReading {
    /// Runs read per call at most: a page is cut short rather than a long scan run.
    public static let boundsLimit = 256

    /// The bounds of one stored run and its payload's size.
    public struct Bounds: Sendable, Hashable {
        public var first: Int, last: Int, bytes: Int
        public init(first: Int, last: Int, bytes: Int) { (self.first, self.last, self.bytes) = (first, last, bytes) }
    }

    /// Of the runs ending after `after`, the ones that continue the changes from `after + 1`
    /// with no gap, oldest first, until they hold `maxBytes` (at least one): a run that holds
    /// nothing new is passed over, one starting past the next revision ends the answer.
    public static func chosen(_ runs: [Bounds], after: Int, maxBytes: Int) -> [Bounds] {
        var chosen: [Bounds] = []
        var covered = after, bytes = 0
        for run in runs.sorted(by: { ($0.first, $0.last) < ($1.first, $1.last) }) {
            guard chosen.isEmpty || bytes < maxBytes else { break }
            guard run.first <= covered + 1 else { break }
            guard run.last > covered else { continue }
            chosen.append(run)
            covered = run.last
            bytes += run.bytes
        }
        return chosen
    }
}
