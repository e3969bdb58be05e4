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

extension StoredDocument {
    static let columns = "id, title, created, modified, metadata"

    init(row: Row) {
        self.init(id: row[0], title: row[1], created: row[2], modified: row[3], metadata: [UInt8](blob: row, 4))
    }
}

extension StoredVersion {
    static let columns = "document, number, revision, time, text, name"

    init(row: Row) {
        self.init(documentID: row[0], number: row[1], revision: row[2], time: row[3], text: row[4], name: row[5])
    }
}

extension StoredSession {
    static let columns = "id, token_hash, name, color, created, last_seen"

    init(row: Row) {
        self.init(id: row[0], tokenHash: [UInt8](blob: row, 1), name: row[2], color: row[3], created: row[4], lastSeen: row[5])
    }
}

extension StoredPasteboard {
    static let columns = "name, owner, persistent, change_count, payload"

    init(row: Row) {
        self.init(name: row[0], owner: row[1], persistent: row[2], changeCount: row[3], payload: [UInt8](blob: row, 4))
    }
}
