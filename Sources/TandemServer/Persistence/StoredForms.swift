import enum TandemHTTP.Gzip
import Foundation
import TandemCore
import TandemStore

/// Collects the document's journal events between two stored changes. Each stored change
/// carries the events since the previous one (its own last), so replaying the stored
/// payloads in revision order rebuilds text, log and undo history exactly.
final class JournalBuffer {
    var events: [DocumentEvent] = []

    func drain() -> [DocumentEvent] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }
}

/// A stored change's payload: its journal events in `JournalBinary`'s form. Changes stored
/// by earlier servers hold them as `JournalCodec`'s JSON (never starting with the binary
/// form's version byte) and still replay.
enum ChangeCodec {
    static func encode(_ events: [DocumentEvent]) -> [UInt8] { JournalBinary.encode(events) }

    static func decode(_ payload: [UInt8]) throws -> [DocumentEvent] {
        JournalBinary.isBinary(payload) ? try JournalBinary.decode(payload) : try JournalCodec.decode(payload)
    }
}

/// Snapshots in the binary form of `DocumentSnapshot.binary()`: gzipped JSON goes value by
/// value, too slow for a busy document's history (see docs/performance.md). Snapshots stored as gzipped or
/// plain JSON by earlier servers still read.
enum SnapshotCodec {
    static func encode(_ s: DocumentSnapshot) -> [UInt8] { s.binary() }

    /// The binary form, or the gzipped (or plain) JSON that snapshots were stored as before.
    static func decode(_ bytes: [UInt8]) throws -> DocumentSnapshot {
        if DocumentSnapshot.isBinary(bytes) { return try DocumentSnapshot(binary: bytes) }
        var json = bytes
        // JSON never starts with gzip's magic number.
        if bytes.starts(with: [0x1F, 0x8B]) {
            guard let inflated = Gzip.decompress(bytes, limit: Int(Int32.max)) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "the snapshot's gzip data is damaged"))
            }
            json = inflated
        }
        return try JSONDecoder().decode(DocumentSnapshot.self, from: Data(json))
    }
}
