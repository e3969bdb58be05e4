/// What the store's reads ask of the state, in the order `SQLiteStore` returns it.
extension MemoryState.Document {
    /// The stored changes with `after < revision <= through`, oldest first. Index arithmetic
    /// only between bounds already clamped to the stored ones, so no extreme bound overflows.
    func changes(after: Int, through: Int) -> [StoredChange] {
        guard after < through, let first = changes.first?.revision else { return [] }
        let last = revision
        let low = after < first ? first : after + 1
        let high = through > last ? last : through
        guard low <= high else { return [] }
        return Array(changes[(low - first)...(high - first)])
    }
}

extension MemoryState {
    func snapshot(document id: String) -> StoredSnapshot? {
        documents[MemoryKey(id)]?.snapshot
    }

    func archivedRuns(document id: String, after: Int, maxBytes: Int) -> [ArchivedRun] {
        guard let archive = documents[MemoryKey(id)]?.archive else { return [] }
        let bounds = archive.values.filter { $0.last > after }.sorted { $0.last < $1.last }
            .prefix(ArchiveReading.boundsLimit)
            .map { ArchiveReading.Bounds(first: $0.first, last: $0.last, bytes: $0.payload.count) }
        return ArchiveReading.chosen(Array(bounds), after: after, maxBytes: maxBytes).map { archive[$0.first]! }
    }

    var archiveSizes: [String: Int] {
        var sizes: [String: Int] = [:]
        for (key, document) in documents where !document.archive.isEmpty {
            sizes[key.string] = document.archive.values.reduce(0) { $0 + $1.payload.count }
        }
        return sizes
    }

    func versions(document id: String) -> [StoredVersion] {
        guard let versions = documents[MemoryKey(id)]?.versions else { return [] }
        return versions.keys.sorted().map { versions[$0]! }
    }

    func version(document id: String, number: Int) -> StoredVersion? {
        documents[MemoryKey(id)]?.versions[number]
    }

    /// Sessions by id.
    var sortedSessions: [StoredSession] {
        sessions.keys.sorted().map { sessions[$0]! }
    }

    /// Users by id.
    var sortedUsers: [StoredUser] {
        users.keys.sorted().map { users[$0]! }
    }

    /// Pasteboards by name.
    var sortedPasteboards: [StoredPasteboard] {
        pasteboards.keys.sorted().map { pasteboards[$0]! }
    }

    func meta(_ key: String) -> [UInt8]? {
        meta[MemoryKey(key)]
    }

    /// Documents by id, each with its snapshot and the changes after it.
    var contents: StoreContents {
        let documents = documents.keys.sorted().map { key in
            let document = self.documents[key]!
            return LoadedDocument(
                document: document.row, revision: document.revision, snapshot: document.snapshot,
                tail: document.changes(after: document.snapshot?.revision ?? 0, through: Int.max))
        }
        var meta: [String: [UInt8]] = [:]
        for (key, value) in self.meta { meta[key.string] = value }
        return StoreContents(documents: documents, sessions: sortedSessions, pasteboards: sortedPasteboards, meta: meta)
    }
}
