import enum TandemHTTP.Gzip
import TandemCore
import TandemStore

/// Changes that left a document's memory, kept in the store so that `GET …/edits` can still
/// page through them (`DocumentPersistence.archive`, `archivedPage`). A run holds each change as
/// `GET …/edits` writes it, framed as (revision, length) varints and the JSON, gzipped:
/// paging reads and copies bytes, and builds no change.
enum ChangeArchive {
    /// The JSON a run holds, before compression; at least one change, however large.
    static let runBytes = 256 << 10

    /// `changes` (consecutive) as runs of about `runBytes` each.
    static func runs(of changes: [Change], document: String) -> [ArchivedRun] {
        var runs: [ArchivedRun] = []
        var framed: [UInt8] = []
        var first = 0
        func close(last: Int) {
            guard !framed.isEmpty else { return }
            // Level 1: a tenth of the JSON's size, as level 6 nearly is, in a third of the time.
            // A run zlib cannot compress is left out: reading finds the gap and answers 410.
            if let payload = Gzip.compress(framed, level: 1) {
                runs.append(ArchivedRun(documentID: document, first: first, last: last, payload: payload))
            }
            framed.removeAll(keepingCapacity: true)
        }
        for (i, c) in changes.enumerated() {
            if framed.isEmpty { first = c.revision }
            let json = DocumentJSON.change(c)
            LEB128.append(UInt64(c.revision), to: &framed)
            LEB128.append(UInt64(json.count), to: &framed)
            framed.append(contentsOf: json)
            if framed.count >= runBytes || i == changes.count - 1 { close(last: c.revision) }
        }
        return runs
    }

    struct Damaged: Error {}

    /// Calls `body` with each change's revision and JSON, oldest first, until it returns false.
    static func forEachChange(in run: ArchivedRun, _ body: (Int, ArraySlice<UInt8>) -> Bool) throws(Damaged) {
        guard let framed = Gzip.decompress(run.payload, limit: Int(Int32.max)) else { throw Damaged() }
        var i = 0
        while i < framed.count {
            guard let revision = try? LEB128.read(framed, at: &i), let count = try? LEB128.read(framed, at: &i),
                  count <= UInt64(framed.count - i)
            else { throw Damaged() }
            let end = i + Int(count)
            guard body(Int(revision), framed[i..<end]) else { return }
            i = end
        }
    }

    /// A page of `GET …/edits` from archived runs: the changes after `since` as a JSON array
    /// while it is under `maxBytes` (at least one), and the last revision it holds; nil when
    /// the runs hold nothing after `since` (the archive does not reach back that far).
    static func page(_ runs: [ArchivedRun], since: Int, maxBytes: Int) throws(Damaged) -> (bytes: [UInt8], last: Int)? {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        var last = since
        for run in runs {
            var full = false
            try forEachChange(in: run) { revision, json in
                guard revision > last else { return true }
                guard revision == last + 1, last == since || bytes.count + json.count < maxBytes else { full = true; return false }
                if last != since { bytes.append(UInt8(ascii: ",")) }
                bytes.append(contentsOf: json)
                last = revision
                return true
            }
            if full { break }
        }
        guard last > since else { return nil }
        bytes.append(UInt8(ascii: "]"))
        return (bytes, last)
    }
}
