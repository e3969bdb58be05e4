import Foundation
import GRDB

/// Byte arrays go in and out as BLOBs. GRDB binds an empty `Data` as NULL, so NULL reads
/// back as no bytes.
extension Array where Element == UInt8 {
    var blob: Data { Data(self) }

    init(blob row: Row, _ column: Int) {
        let data: Data? = row[column]
        self = data.map { [UInt8]($0) } ?? []
    }
}

/// Text a client wrote (a title, a name, a version's text) goes in as a BLOB of its UTF-8 and
/// is read back through `CAST(… AS BLOB)` (rows written as TEXT before read the same way):
/// SQLite's C strings end at U+0000, which JSON and Tandem allow inside text.
extension String {
    /// An empty text stays TEXT: GRDB would bind an empty BLOB as NULL.
    var utf8Blob: any DatabaseValueConvertible & Sendable { isEmpty ? self : Data(utf8) }

    init(utf8Blob row: Row, _ column: Int) {
        self.init(decoding: [UInt8](blob: row, column), as: UTF8.self)
    }

    init?(optionalUTF8Blob row: Row, _ column: Int) {
        guard let data: Data = row[column] else {
            // An empty text binds as NULL too (see above): only a NULL column of its own is nil.
            if row.hasNull(atIndex: column) { return nil }
            self = ""
            return
        }
        self.init(decoding: data, as: UTF8.self)
    }
}

extension StoredDocument {
    static let columns = "id, title, created, modified, metadata"
    static let selected = "id, CAST(title AS BLOB), created, modified, metadata"

    init(row: Row) {
        self.init(id: row[0], title: String(utf8Blob: row, 1), created: row[2], modified: row[3], metadata: [UInt8](blob: row, 4))
    }
}

extension StoredVersion {
    static let columns = "document, number, revision, time, text, name, automatic, since, authorship, length"
    static let selected = "document, number, revision, time, CAST(text AS BLOB), CAST(name AS BLOB), automatic, since, authorship"

    init(row: Row) {
        self.init(documentID: row[0], number: row[1], revision: row[2], time: row[3], text: String(utf8Blob: row, 4),
                  name: String(optionalUTF8Blob: row, 5), automatic: row[6], since: row[7],
                  authorship: row.hasNull(atIndex: 8) ? nil : [UInt8](blob: row, 8))
    }
}

extension StoredSession {
    static let columns = "id, token_hash, name, color, created, last_seen, user_id, grants, expires"
    static let selected = "id, token_hash, CAST(name AS BLOB), color, created, last_seen, user_id, grants, expires"

    init(row: Row) {
        self.init(id: row[0], tokenHash: [UInt8](blob: row, 1), name: String(utf8Blob: row, 2), color: row[3], created: row[4],
                  lastSeen: row[5], userID: row[6], grants: row[7], expires: row[8])
    }
}

extension StoredUser {
    static let columns = "id, name, display_name, password_hash, created"
    static let selected = "id, CAST(name AS BLOB), CAST(display_name AS BLOB), password_hash, created"

    init(row: Row) {
        self.init(id: row[0], name: String(utf8Blob: row, 1), displayName: String(utf8Blob: row, 2), passwordHash: row[3], created: row[4])
    }
}

extension StoredPasteboard {
    static let columns = "name, owner, persistent, change_count, payload, shared, shared_with"

    init(row: Row) {
        self.init(name: row[0], owner: row[1], persistent: row[2], changeCount: row[3], payload: [UInt8](blob: row, 4), shared: row[5],
                  sharedWith: Self.sharedWith(column: row[6]))
    }
}
