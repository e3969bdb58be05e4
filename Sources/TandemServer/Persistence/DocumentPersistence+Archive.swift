import TandemCore
import TandemStore

/// Changes leave a document's memory (`trimToKeptTail`) into the store's archive, within
/// `--archive-bytes` per document and `--archive-total-bytes` in all, and `GET …/edits`
/// pages through them there (see docs/architecture.md, "Change log").
extension DocumentPersistence {
    /// Stores `leaving` (consecutive changes that left `id`'s memory) as archived runs, and
    /// cuts the document's archive back to `--archive-bytes`. Not waited for: the store
    /// writes in order, so the runs land before anything submitted later (a snapshot without
    /// them). If the write fails, `GET …/edits` finds the gap and answers `410` there.
    /// `leaving` comes from `trimToKeptTail(_:of:…)`, which counted this write as in flight.
    func archive(_ leaving: [Change], of id: String) {
        guard let first = leaving.first?.revision, let last = leaving.last?.revision else { return }
        let runs = ChangeArchive.runs(of: leaving, document: id)
        let bytes = runs.reduce(0) { $0 + $1.payload.count }
        let each = configuration.archiveBytes
        store.submit(runs.map(StoreWrite.archive) + [.trimArchive(document: id, keepBytes: each)], delivery: delivery()) { [self] result in
            defer { archivesInFlight.end(id) }
            switch result {
            case .success: archiveSizes.withLock { $0[id] = min(each, $0[id, default: 0] + bytes) }
            case .failure(let error): logger.warning("could not archive changes \(first)...\(last) of \(id): \(error)")
            }
        }
    }

    /// While all archives together hold more than `--archive-total-bytes`, cuts the largest
    /// back first, each to an equal share (as `logShare` does for the logs in memory), never
    /// under 64 KiB.
    func keepArchivesWithinTotal() {
        guard configuration.archiveBytes > 0 else { return }
        let live = Set(handles.all().map(\.id))
        let sizes = archiveSizes.withLock { sizes in
            sizes = sizes.filter { live.contains($0.key) }
            return sizes
        }
        let share = Self.logShare(sizes: Array(sizes.values), total: configuration.archiveTotalBytes,
                                  each: configuration.archiveBytes, floor: 64 << 10)
        let over = sizes.keys.filter { sizes[$0]! > share }
        guard !over.isEmpty else { return }
        store.submit(over.map { .trimArchive(document: $0, keepBytes: share) }, delivery: delivery()) { [self] result in
            switch result {
            case .success: archiveSizes.withLock { for id in over { $0[id] = min(share, $0[id] ?? 0) } }
            case .failure(let error): logger.warning("could not cut the archives back to \(share) bytes each: \(error)")
            }
        }
    }

    /// A page of `GET …/edits` after `since` from the archive (on the heavy-work pool: it
    /// reads the store), and the revision the next page starts after. `410` when the archive
    /// does not hold `since + 1`; a caller that gets it while `archivesInFlight` holds writes
    /// of this document asks again once they landed.
    func archivedPage(of handle: DocumentHandle, since: Int, maxBytes: Int) -> Result<(bytes: [UInt8], next: Int?), APIError> {
        let page: (bytes: [UInt8], last: Int)?
        do {
            page = try ChangeArchive.page(store.archivedRuns(document: handle.id, after: since, maxBytes: maxBytes),
                                          since: since, maxBytes: maxBytes)
        } catch let error as StoreError {
            logger.error("could not read the archive of \(handle.id): \(error)")
            return .failure(.storageFailing)
        } catch {
            logger.error("the archive of \(handle.id) after revision \(since) is damaged")
            return .failure(.storageFailing)
        }
        let (committed, firstAvailable) = handle.executor.sync { ($0.committedRevision, $0.document.firstAvailableRevision) }
        guard let page else {
            return .failure(.document(.revisionTrimmed(base: since, firstAvailable: firstAvailable)))
        }
        return .success((page.bytes, page.last < committed ? page.last : nil))
    }
}
