import Foundation
import Logging
import Synchronization
import TandemCore
import TandemHTTP
import TandemStore

/// The whole server: store, documents, sessions, the REST API on the HTTP server, and the
/// housekeeping (long-poll deadlines, idle sessions, SSE keep-alives, autosave).
public final class TandemApp: Sendable {
    let context: ServerContext
    private let server: HTTPServer
    private let stopping = Atomic<Bool>(false)
    /// One server per data folder (`DataFolderLock`), held until the process ends.
    private let dataLock: DataFolderLock

    public convenience init(configuration: ServerConfiguration, logger: Logger) throws {
        try self.init(configuration: configuration, logger: logger, wrappingStore: { $0 })
    }

    /// `wrappingStore` lets tests put a store of their own around the SQLite one (e.g. one
    /// whose writes are held back on purpose).
    init(configuration: ServerConfiguration, logger: Logger, wrappingStore: (any DocumentStore) -> any DocumentStore) throws {
        try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        dataLock = try DataFolderLock(directory: configuration.dataDirectory)
        guard let durability = Durability(rawValue: configuration.durability) else {
            throw APIError.badRequest("unknown durability \(configuration.durability)")
        }
        let engine: any DocumentStore
        let idempotency: any IdempotencyStore
        var shared: (any Replication)?
        var leased: LeasedReplication?
        var directory: (@Sendable () throws(StoreError) -> [DirectoryEntry])?
        // The documents' loader where each has an owner: it needs the service, made below.
        let started = SharedValue<ServerContext?>(nil)
        if let url = configuration.databaseURL {
            let postgres = try PostgresStore(url: url, schema: configuration.databaseSchema)
            engine = postgres
            switch configuration.clusterMode {
            case .sequenced:
                shared = SequencedReplication(store: postgres)
            case .leases:
                leased = LeasedReplication(store: postgres, advertise: configuration.advertise) { id in
                    guard let context = started.withLock({ $0 }) else { throw StoreError.io("the server is starting") }
                    // The fresh copy replaces an older one in one step: no request finds neither.
                    let handles = context.service.handles
                    let old = handles.find(id)
                    guard let loaded = try postgres.loadDocument(id) else { return old.map(handles.release) ?? () }
                    try context.service.persistence.restoreDocument(loaded)
                    if let old { handles.retire(old) }
                } moveOut: { id, handOver in
                    guard let context = started.withLock({ $0 }) else { return }
                    let handles = context.service.handles
                    guard let handle = handles.find(id) else { return }
                    _ = handles.moveOut(handle, idle: 5, now: context.now(), handOver: handOver)
                }
                shared = leased
                directory = { () throws(StoreError) in try postgres.directory() }
            }
            // Every node on the database answers a resend: the keys live there too.
            idempotency = PostgresIdempotency(keys: PostgresIdempotencyKeys(store: postgres), node: postgres.nodeID, logger: logger)
        } else {
            engine = try SQLiteStore(directory: configuration.dataDirectory, durability: durability)
            idempotency = IdempotencyCache()
        }
        let store = wrappingStore(engine)
        let metrics = Metrics()
        let replication: any Replication = shared ?? LocalReplication(store: store)
        try replication.prepare()
        let contents = try store.loadAll()
        let users = try store.users()
        let userNames = Dictionary(users.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        let sessions = SessionRegistry(restoring: contents.sessions.map {
            Session($0, userName: $0.userID.flatMap { userNames[$0] })
        })
        for user in users { sessions.noteUser(id: user.id, displayName: user.displayName) }
        let context = ServerContext(configuration: configuration, store: store, sessions: sessions, metrics: metrics,
                                    idempotency: idempotency, replication: replication, ownership: leased?.ownership,
                                    clusterKey: try leased?.ownership.leases.clusterKey(),
                                    directory: directory, logger: logger)
        self.context = context
        started.withLock { $0 = context }
        // Where documents have owners, each is loaded when this node takes its lease.
        if leased == nil {
            try context.service.persistence.restoreDocuments(contents.documents)
        } else {
            // Their links, though: a link is presented to any node.
            for l in contents.documents {
                context.service.handles.indexLinks(of: l.document.id, DocumentMetadata(decoding: l.document.metadata).access)
            }
        }
        let archived = try store.archiveSizes()
        context.service.archiveSizes.withLock { $0 = archived }
        // The stored pasteboards (a session's end takes its own, see `storeSessionEnd`).
        context.pasteboards.restore(contents.pasteboards, logger: logger)

        var http = HTTPServer.Configuration(
            host: configuration.host, port: configuration.port,
            eventLoopCount: configuration.eventLoops > 0 ? configuration.eventLoops : HTTPServer.Configuration.coreCount,
            maxConnections: configuration.maxConnections,
            limits: HTTPLimits(maxBodyBytes: configuration.maxBodyBytes),
            logger: logger
        )
        http.maxConnectionsPerAddress = configuration.maxConnectionsPerAddress
        let clients = context.clients
        http.uncappedPeer = { clients.isTrusted($0) }
        if let cert = configuration.tlsCertificatePath, let key = configuration.tlsKeyPath {
            let tls = try TLSContext(certificatePath: cert, keyPath: key)
            http.transportFactory = { tls.makeTransport(fileDescriptor: $0) }
        }
        let router = context.makeRouter()
        server = HTTPServer(configuration: http, handler: router.handler)
        let server = self.server
        metrics.registerGauge("tandem_http_open_connections", help: "Open client connections.") { server.connectionCount }
        metrics.registerGauge("tandem_documents", help: "Documents held.") { context.service.documents.withLock { $0.count } }
        metrics.registerGauge("tandem_sessions", help: "Live sessions.") { context.sessions.count }
        metrics.registerGauge("tandem_sse_subscribers", help: "Open event streams.") { context.service.subscribers.load(ordering: .relaxed) + context.pasteboards.events.count }
        if let mirrors = context.mirrors {
            metrics.registerGauge("tandem_stream_mirrors", help: "Documents held on other nodes whose event stream this node receives once for its subscribers.") { mirrors.count }
            metrics.registerGauge("tandem_mirrored_streams", help: "Event streams this node sends from its mirrors.") { mirrors.subscribers }
        }
        // Changes per transaction shows how well group commit batches.
        metrics.registerCounter("tandem_store_transactions_total", help: "Write transactions the store committed (one per group commit).") { store.statistics.transactions }
        metrics.registerCounter("tandem_store_revisions_appended_total", help: "Revisions (changes) the store committed.") { store.statistics.appendedChanges }
        metrics.registerCounter("tandem_store_wal_flushes_total", help: "fdatasync calls on the write-ahead log (durability full), each covering every commit since the last.") { store.statistics.walFlushes }
        // Divided by the counts above: the mean flush and commit, the floor of an edit's wait.
        metrics.registerSecondsCounter("tandem_store_wal_flush_seconds_total", help: "Time spent in those fdatasync calls.") { store.statistics.walFlushNanoseconds }
        metrics.registerSecondsCounter("tandem_store_commit_seconds_total", help: "Time the store's writer spent committing transactions.") { store.statistics.commitNanoseconds }
        for kind in ["edit", "undo", "redo"] { metrics.increment("tandem_changes_applied_total{kind=\"\(kind)\"}", by: 0) }
        metrics.increment("tandem_undos_total", by: 0)
        metrics.increment("tandem_redos_total", by: 0)
    }

    public var boundPort: Int { server.boundPort }

    public func start() throws {
        try server.start()
        context.service.replication.bound(port: server.boundPort)
        context.service.replication.start(logger: context.logger)
        let thread = Thread { [self] in runHousekeeping() }
        thread.name = "tandem-housekeeping"
        thread.start()
    }

    /// Graceful: stops accepting, lets in-flight requests finish, ends event streams,
    /// then closes the store once every queued change is committed.
    public func shutdown(gracePeriod: Double) {
        stopping.store(true, ordering: .relaxed)
        context.service.replication.stop()
        for handle in context.service.documents.withLock({ Array($0.values) }) { handle.events.closeAll() }
        context.mirrors?.closeAll()
        context.pasteboards.events.closeAll()
        server.shutdown(gracePeriod: .milliseconds(Int(gracePeriod * 1000)))
        context.service.persistence.takeSnapshots(all: true)
        context.sessionActivity.storeSessionActivity(interval: 0)
        context.service.replication.finish()
        context.store.close()
        dataLock.release()
    }

    private func runHousekeeping() {
        var lastKeepAlive = context.now()
        var lastSessionSweep = context.now()
        var lastIdempotencySweep = context.now()
        while !stopping.load(ordering: .relaxed) {
            Thread.sleep(forTimeInterval: 0.1)
            let now = context.now()
            // What `/healthz` answers from; a failing store is tried again every second.
            context.service.persistence.keepStoreHealthFresh(probe: now - lastSessionSweep >= 1)
            context.service.replication.tick(now: now)
            expirePollers(now: now)
            context.service.sessionEnds.endExpiredLinks(now: now)
            if now - lastKeepAlive >= context.configuration.keepAliveInterval {
                lastKeepAlive = now
                sendKeepAlives()
            }
            if now - lastSessionSweep >= 1 {
                lastSessionSweep = now
                context.sessionActivity.sweepSessions(now: now)
                context.sessionActivity.endSessionsOfRemovedUsers()
                context.sessionActivity.storeSessionActivity(interval: context.sessionActivity.lastSeenStoreInterval)
                context.service.persistence.trimLogsToConfiguredLength()
                context.service.autosave(now: now)
                context.service.persistence.takeSnapshots()
            }
            if now - lastIdempotencySweep >= 60 {
                lastIdempotencySweep = now
                context.idempotency.expire()
            }
        }
    }

    /// Answers the long-polls (`GET …/edits?wait=`) whose wait is over.
    private func expirePollers(now: Double) {
        for handle in context.service.documents.withLock({ Array($0.values) }) {
            let due: [(DocumentState.Poller, PollAnswer)] = handle.executor.sync { st in
                var out: [(DocumentState.Poller, PollAnswer)] = []
                st.pollers.removeAll { p in
                    guard p.deadline <= now else { return false }
                    out.append((p, p.behind ? .failed(.revisionInFuture(p.since, current: st.committedRevision)) : .empty))
                    return true
                }
                return out
            }
            for (p, answer) in due { p.answer(answer) }
        }
    }

    /// Keeps every open event stream from looking idle to proxies and clients.
    private func sendKeepAlives() {
        for handle in context.service.documents.withLock({ Array($0.values) }) { handle.events.send(ServerSentEvents.keepAlive) }
        context.pasteboards.events.send(ServerSentEvents.keepAlive)
    }
}
