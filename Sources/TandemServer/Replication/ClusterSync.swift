import Dispatch
import Foundation
import Logging
import TandemCore
import TandemStore

/// How a node learns what the others did: the cluster feed names each entity a unit touched;
/// the node reads the entries after the last it applied and refreshes those entities from the
/// tables. Run before every request (so a request sees everything committed before it
/// arrived, on whichever node) and whenever the doorbell rings (so streams and long-polls hear
/// of other nodes' changes at once).
///
/// It promises: the feed is applied in order, each entry once (`Cluster.gate`); a request
/// that waited for `afterSync` sees everything any node committed before it arrived; a node
/// that missed entries (the feed was pruned past it) reads everything again.
///
/// Made for each call from the service's parts (`SequencedReplication`), so it holds no
/// reference that outlives the call: what lasts between syncs is in `Cluster`.
struct ClusterSync: Sendable {
    let cluster: Cluster
    let handles: DocumentHandles
    let store: any DocumentStore
    let persistence: DocumentPersistence
    let pipeline: ChangePipeline
    let events: DocumentEvents
    let access: DocumentAccess
    let sessionEnds: SessionEnds
    let sessions: SessionRegistry
    let pasteboards: PasteboardRegistry
    let replication: any Replication
    let logger: Logger
    let delivery: @Sendable () -> Delivery
    let catchingUp: ClusterCatchUp

    init(cluster: Cluster, documents: DocumentService) {
        self.cluster = cluster
        handles = documents.handles
        store = documents.store
        persistence = documents.persistence
        pipeline = documents.pipeline
        events = documents.events
        access = documents.access
        sessionEnds = documents.sessionEnds
        sessions = documents.sessions
        pasteboards = documents.pasteboards
        replication = documents.replication
        logger = documents.logger
        delivery = documents.delivery
        catchingUp = ClusterCatchUp(documents)
    }

    func now() -> Double { Date().timeIntervalSince1970 }

    /// Calls `next` once the node has applied everything committed before now (with the
    /// sync's failure, if the database could not be read), on the cluster's sync queue.
    /// Requests that arrive while a sync runs share the next one.
    func afterSync(_ next: @escaping @Sendable (StoreError?) -> Void) {
        let arrived = Cluster.monotonicNow()
        let start = cluster.waiting.withLock { w -> Bool in
            w.list.append(.init(arrived: arrived, next: next))
            if w.draining { return false }
            w.draining = true
            return true
        }
        if start { cluster.syncQueue.async { [self] in drainSyncs() } }
    }

    private func drainSyncs() {
        while true {
            let batch = cluster.waiting.withLock { w -> [Cluster.WaitingRequest] in
                if w.list.isEmpty { w.draining = false }
                defer { w.list.removeAll(keepingCapacity: true) }
                return w.list
            }
            if batch.isEmpty { return }
            cluster.reachability.withLock { $0.syncing = Cluster.monotonicNow() }
            var failure: StoreError?
            do {
                try PostgresStore.readingFeed { () throws(StoreError) in try syncCluster(arrived: batch.map(\.arrived).max()) }
            } catch {
                failure = error
            }
            let at = now()
            cluster.reachability.withLock { r in
                (r.syncing, r.checked) = (nil, Cluster.monotonicNow())
                if let failure {
                    r.failure = (failure, r.failure?.since ?? at)
                } else {
                    r.failure = nil
                }
            }
            for request in batch { request.next(failure) }
        }
    }

    /// Applies the feed up to now. `arrived` (monotonic ns): a sync that started after it
    /// already covers the caller. Throws when the database cannot be read.
    func syncCluster(arrived: UInt64? = nil) throws(StoreError) {
        try cluster.gate.withLock { gate throws(StoreError) in
            let started = Cluster.monotonicNow()
            if let arrived, gate.lastStarted > arrived { return }
            if let arrived, gate.downUntil > arrived {
                throw gate.lastError ?? .io("the database did not answer a moment ago")
            }
            do {
                while true {
                    let (entries, oldest) = try cluster.store.clusterEntries(after: gate.applied, limit: Cluster.pageSize)
                    // This node's own commits are in the feed a moment before they show
                    // here: a request that reached this node waits for them, as it would on
                    // another, and so does the catch-up of the others' changes after them
                    // (a document with a change in flight takes in nothing).
                    if let own = entries.last(where: { $0.node == cluster.store.nodeID }) {
                        cluster.store.published.wait(until: own.seq)
                        // Their outcomes may still wait in the documents' inboxes for the
                        // loop they go to: published now, so this node shows them already.
                        publishOwnCommits(entries.filter { $0.node == cluster.store.nodeID })
                    }
                    if let oldest, oldest > gate.applied + 1 {
                        // Entries this node never saw were pruned: everything is read again.
                        try reloadEverything()
                    } else {
                        try apply(entries.filter { $0.node != cluster.store.nodeID })
                    }
                    if let last = entries.last { gate.applied = last.seq }
                    if entries.count < Cluster.pageSize { break }
                }
                gate.lastStarted = started
                gate.downUntil = 0
            } catch let error as StoreError {
                gate.downUntil = Cluster.monotonicNow() + Cluster.downNanoseconds
                gate.lastError = error
                throw error
            } catch {
                throw .io("\(error)")
            }
        }
    }

    /// This node's committed changes named by `entries`, published from their documents'
    /// inboxes (the delivered jobs then find nothing left).
    private func publishOwnCommits(_ entries: [ClusterEntry]) {
        var seen = Set<String>()
        for entry in entries where entry.kind == .changes && seen.insert(entry.key).inserted {
            guard let handle = handles.find(entry.key) else { continue }
            handle.executor.sync { st in pipeline.receiveCommits(&st, handle) }?()
        }
    }

    /// The entries of one page, each entity refreshed once.
    private func apply(_ entries: [ClusterEntry]) throws(StoreError) {
        guard !entries.isEmpty else { return }
        var seen = Set<String>()
        var selections: [String] = []
        var documentKinds: [String: Set<ClusterEntry.Kind>] = [:]
        var documentOrder: [String] = []
        for entry in entries {
            switch entry.kind {
            case .session:
                if seen.insert("s" + entry.key).inserted { try refreshSession(entry.key) }
            case .pasteboard:
                if seen.insert("p" + entry.key).inserted { try refreshPasteboard(entry.key) }
            case .selection:
                if cluster.followsDocuments, seen.insert("x" + entry.key).inserted { selections.append(entry.key) }
            default:
                // Where documents have owners, each owner alone changes its documents; the
                // others keep only their links, which any node must know.
                guard cluster.followsDocuments else {
                    if [.created, .updated, .deleted].contains(entry.kind), seen.insert("l" + entry.key).inserted {
                        try refreshLinks(entry.key)
                    }
                    continue
                }
                if documentKinds[entry.key] == nil { documentOrder.append(entry.key) }
                documentKinds[entry.key, default: []].insert(entry.kind)
            }
        }
        // The heads and new changes of every open document the page names, read at once.
        let wanted = documentOrder.compactMap { id -> (id: String, after: Int)? in
            guard let kinds = documentKinds[id], kinds.contains(.changes) || kinds.contains(.journal),
                  let handle = handles.find(id) else { return nil }
            return (id, handle.executor.sync { $0.document.revision })
        }
        let read = try cluster.store.catchUpReads(wanted, journalPrefix: ClusterEntry.journalPrefix)
        let prefetched = CatchUpRead(after: Dictionary(wanted.map { ($0.id, $0.after) }) { a, _ in a },
                                     heads: read.heads, changes: read.changes)
        for id in documentOrder { try refreshDocument(id, kinds: documentKinds[id]!, prefetched: prefetched) }
        // After the documents' catch-up, so a selection's revision is there to map from.
        for key in selections { try refreshSelection(key) }
    }

    /// `catchUpReads` for a page's documents.
    private struct CatchUpRead {
        /// The documents read, and the revision each was read after.
        var after: [String: Int]
        var heads: [String: SequencedTransaction.Head]
        var changes: [String: [StoredChange]]
    }

    private func refreshDocument(_ id: String, kinds: Set<ClusterEntry.Kind>, prefetched: CatchUpRead) throws(StoreError) {
        let handle = handles.find(id)
        guard let handle else {
            // Created elsewhere (or created and deleted since): load it if it is there.
            if let loaded = try cluster.store.loadDocument(id) {
                do {
                    let handle = try persistence.restoreDocument(loaded)
                    // Created here meanwhile under the same id (it would have conflicted): keep ours.
                    _ = handle
                } catch {
                    logger.error("document \(id) from another node cannot be loaded: \(error)")
                }
            }
            return
        }
        if kinds.contains(.deleted) || kinds.contains(.created) {
            guard let stored = try cluster.store.loadDocument(id) else {
                handles.forgetIfCurrent(handle)
                return
            }
            // Deleted and created again under the same id: the new one replaces it.
            if abs(stored.document.created - handle.executor.sync({ $0.created })) > 0.000_5 {
                handles.forgetIfCurrent(handle)
                do { _ = try persistence.restoreDocument(stored) } catch {
                    logger.error("document \(id) from another node cannot be loaded: \(error)")
                }
                return
            }
        }
        if kinds.contains(.changes) || kinds.contains(.journal) {
            let readAfter = prefetched.after[id]
            let head = readAfter != nil ? prefetched.heads[id] : try cluster.store.documentHead(id, journalPrefix: ClusterEntry.journalPrefix)
            guard let head else { return handles.forgetIfCurrent(handle) }
            do {
                try catchingUp.catchUp(handle, revision: head.revision, journal: head.journal, reloadAllowed: false) { after throws(StoreError) in
                    // What was read for the page, unless the copy went back meanwhile (rebuilt).
                    if let readAfter, after >= readAfter {
                        return (prefetched.changes[id] ?? []).filter { $0.revision > after }
                    }
                    return try store.changes(document: id, after: after)
                }
            } catch .notFound {
                return handles.forgetIfCurrent(handle)
            }
        }
        if kinds.contains(.updated) { try refreshMetadata(handle) }
        if kinds.contains(.version) { refreshSaved(handle) }
    }

    /// A document held elsewhere: its links as stored (gone with it).
    private func refreshLinks(_ id: String) throws(StoreError) {
        guard handles.find(id) == nil else { return }
        if let stored = try store.document(id) {
            handles.indexLinks(of: id, DocumentMetadata(decoding: stored.metadata).access)
        } else {
            handles.forgetLinks(of: id)
        }
    }

    /// Title, flags and access rules as another node stored them.
    private func refreshMetadata(_ handle: DocumentHandle) throws(StoreError) {
        guard let stored = try store.document(handle.id) else { return handles.forgetIfCurrent(handle) }
        let metadata = DocumentMetadata(decoding: stored.metadata)
        let changed = handle.executor.sync { st -> (state: Bool, title: Bool, access: AccessRules?) in
            let before = st.condition
            let titleBefore = st.title
            let accessBefore = st.access
            st.title = stored.title
            st.editingDisabled = metadata.editingDisabled
            st.secure = metadata.secure
            st.access = metadata.access
            st.modified = max(st.modified, stored.modified)
            return (before != st.condition, titleBefore != st.title, accessBefore != st.access ? st.access : nil)
        }
        if let rules = changed.access {
            handles.indexLinks(of: handle.id, rules)
            access.accessChanged(handle, to: rules)
        }
        if changed.state { events.broadcastState(handle) }
        if changed.title { events.broadcastTitle(handle) }
    }

    /// A version saved on another node: the saved text, and the `saved` event.
    private func refreshSaved(_ handle: DocumentHandle) {
        guard let newest = try? store.versionLedger(document: handle.id).newest,
              let version = try? store.version(document: handle.id, number: newest.number) else { return }
        // A checkpoint that took another's place carries on its `since`. (The next save here
        // reads the whole ledger again: `SequencedUnits`.)
        let replaced = handle.versions.withLock { ledger -> Int? in
            guard let before = ledger?.newest, before.number < version.number else { return nil }
            let replaced = before.automatic && version.automatic && before.since == version.since ? before.number : nil
            if let replaced { ledger?.removed(replaced) }
            ledger?.added(VersionLedger.Entry(version))
            return replaced
        }
        handle.executor.sync { st in
            guard !st.deleted, version.revision >= st.savedRevision else { return }
            (st.savedRope, st.savedRevision) = (Rope(version.text), version.revision)
            st.lastSaved = version.time
            st.lastSavedRevision = max(st.lastSavedRevision, version.revision)
            handle.events.send(ServerSentEvents.frame(id: st.committedRevision, event: "saved", data: DocumentJSON.saved(version, replaced: replaced, dropped: [])))
        }
    }

    private func refreshSession(_ id: String) throws(StoreError) {
        if let stored = try cluster.store.session(id) {
            let userName = try stored.userID.flatMap { id throws(StoreError) in try cluster.store.user(id: id)?.name }
            let session = Session(stored, userName: userName)
            let before = sessions.session(id: id)
            sessions.refresh(session)
            // Renewed on another node with other grants: what they no longer allow ends here too.
            if let before, before.grants != session.grants { sessionEnds.grantsChanged(of: session) }
            // Renamed on another node: whoever sees it present here hears the new name (with
            // a document's requests routed to one node, its streams are all here).
            if let before, before.name != session.name || before.color != session.color {
                for handle in handles.present(session: id) { events.broadcastPresence(handle) }
            }
        } else if sessions.remove(id: id) != nil {
            // Ended on another node: its selections go here too, and whoever sees it present
            // hears it left (its undo groups go with the documents' journals, which here, where
            // documents have owners, this node writes for its own).
            let present = Set(handles.present(session: id).map(\.id))
            if !cluster.followsDocuments { sessionEnds.endHere(id) }
            for handle in handles.all() {
                let hadSelection = handle.executor.sync { st -> Bool in
                    guard st.document.selection(for: id) != nil else { return false }
                    st.document.removeSelection(for: id)
                    return true
                }
                if hadSelection || present.contains(handle.id) { events.broadcastPresence(handle) }
            }
            sessionEnds.endAccess(ofSession: id)
        }
    }

    private func refreshPasteboard(_ name: String) throws(StoreError) {
        let stored = try cluster.store.pasteboard(name)
        if let event = pasteboards.refresh(name, from: stored, logger: logger) { events.publishPasteboard(event) }
    }

    /// The feed was pruned past this node: every document, session and pasteboard read again.
    private func reloadEverything() throws(StoreError) {
        logger.warning("the cluster feed moved past this node; reloading everything")
        let contents = try store.loadAll()
        let stored = Set(contents.documents.map(\.document.id))
        for handle in handles.all() where !stored.contains(handle.id) { handles.forgetIfCurrent(handle) }
        for loaded in contents.documents where cluster.followsDocuments {
            if let handle = handles.find(loaded.document.id) {
                try catchingUp.catchUp(handle, revision: loaded.revision, journal: contents.meta[DocumentPersistence.pendingKey(loaded.document.id)],
                            reloadAllowed: false) { after throws(StoreError) in
                    try store.changes(document: loaded.document.id, after: after)
                }
                try refreshMetadata(handle)
            } else {
                do { _ = try persistence.restoreDocument(loaded) } catch { logger.error("document \(loaded.document.id) cannot be loaded: \(error)") }
            }
        }
        let storedSessions = Set(contents.sessions.map(\.id))
        for s in sessions.all where !storedSessions.contains(s.id) {
            sessions.remove(id: s.id)
            sessionEnds.endAccess(ofSession: s.id)
        }
        for s in contents.sessions { try refreshSession(s.id) }
        for p in contents.pasteboards { try refreshPasteboard(p.name) }
    }
}
