/// Consecutive changes of one document stored as one row of `change_runs`, `first...last`:
/// a group commit stores a busy document's batch as one row, not a row per keystroke. A row
/// costs a B-tree insert, an index insert and a foreign-key check whatever its size, and these
/// rows are small, so per change those fixed costs would outweigh the change itself
/// (see docs/performance.md).
///
/// The payload is each change's bytes after their length as an unsigned LEB128 varint, in
/// revision order: the count is implied by `first...last` and checked on every read.
enum ChangeRun {
    /// A run holds changes up to this many payload bytes (a larger change is a run alone):
    /// a batch of large pastes stays far from SQLite's 1 GB limit on a value, and a read
    /// or a trim never decodes more than it must by much.
    static let maxBytes = 1 << 20

    /// Consecutive changes cut into runs of at most `maxBytes` of payload.
    static func split(_ changes: ArraySlice<StoredChange>) -> [ArraySlice<StoredChange>] {
        var runs: [ArraySlice<StoredChange>] = []
        var start = changes.startIndex
        var bytes = 0
        for i in changes.indices {
            let size = changes[i].payload.count
            if i > start && bytes + size > maxBytes {
                runs.append(changes[start..<i])
                start = i
                bytes = 0
            }
            bytes += size
        }
        if start < changes.endIndex { runs.append(changes[start...]) }
        return runs
    }

    static func encode(_ changes: some Collection<StoredChange>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(changes.reduce(0) { $0 + $1.payload.count + 2 })
        for change in changes {
            LEB128.append(UInt64(change.payload.count), to: &out)
            out += change.payload
        }
        return out
    }

    /// The changes of the run `first...last` whose revisions are in `wanted`, appended to
    /// `changes`. `.corrupt` when the payload does not hold exactly `last - first + 1` framed
    /// changes: a damaged row must fail loudly, never replay as a shorter history.
    static func decode(_ bytes: [UInt8], document: String, first: Int, last: Int,
                       wanted: ClosedRange<Int>, into changes: inout [StoredChange]) throws(StoreError) {
        // No revision is Int.max (they count up from 1): such a `last` is damage, and counting
        // one past it would overflow.
        guard first >= 1, first <= last, last < Int.max else { throw damaged(document, first, last) }
        var index = 0
        var revision = first
        while index < bytes.count {
            guard let read = try? LEB128.read(bytes, at: &index), revision <= last, read <= UInt64(bytes.count - index) else {
                throw damaged(document, first, last)
            }
            let length = Int(read)
            if wanted.contains(revision) {
                changes.append(StoredChange(documentID: document, revision: revision, payload: Array(bytes[index..<index + length])))
            }
            index += length
            revision += 1
        }
        guard revision == last + 1 else { throw damaged(document, first, last) }
    }

    private static func damaged(_ document: String, _ first: Int, _ last: Int) -> StoreError {
        .corrupt("the stored changes \(first)...\(last) of \(document) are damaged")
    }
}
