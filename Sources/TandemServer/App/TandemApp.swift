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
        var sequenced: SequencedReplication?
        if let url = configuration.databaseURL {
            let postgres = try PostgresStore(url: url, schema: configuration.databaseSchema)
            engine = postgres
            sequenced = SequencedReplication(store: postgres)
            // Every node on the database answers a resend: the keys live there too.
            idempotency = PostgresIdempotency(keys: PostgresIdempotencyKeys(store: postgres), node: postgres.nodeID, logger: logger)
        } else {
            engine = try SQLiteStore(directory: configuration.dataDirectory, durability: durability)
            idempotency = IdempotencyCache()
        }
        let store = wrappingStore(engine)
        let metrics = Metrics()
        let replication: any Replication = sequenced ?? LocalReplication(store: store)
        try replication.prepare()
        let contents = try store.loadAll()
        let users = try store.users()
        let userNames = Dictionary(users.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        let sessions = SessionRegistry(restoring: contents.sessions.map {
            Session($0, userName: $0.userID.flatMap { userNames[$0] })
        })
        for user in users { sessions.noteUser(id: user.id, displayName: user.displayName) }
        let context = ServerContext(configuration: configuration, store: store, sessions: sessions, metrics: metrics,
                                    idempotency: idempotency, replication: replication, logger: logger)
        self.context = context
        try context.service.restoreDocuments(contents.documents)
        let archived = try store.archiveSizes()
        context.service.archiveSizes.withLock { $0 = archived }
        context.startPasteboards(contents.pasteboards)

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
        context.pasteboards.events.closeAll()
        server.shutdown(gracePeriod: .milliseconds(Int(gracePeriod * 1000)))
        context.service.takeSnapshots(all: true)
        context.storeSessionActivity(interval: 0)
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
            context.service.keepStoreHealthFresh(probe: now - lastSessionSweep >= 1)
            context.service.replication.tick(now: now)
            context.expirePollers(now: now)
            context.service.endExpiredLinks(now: now)
            if now - lastKeepAlive >= context.configuration.keepAliveInterval {
                lastKeepAlive = now
                context.sendKeepAlives()
            }
            if now - lastSessionSweep >= 1 {
                lastSessionSweep = now
                context.sweepSessions(now: now)
                context.endSessionsOfRemovedUsers()
                context.storeSessionActivity(interval: context.lastSeenStoreInterval)
                context.service.trimLogsToConfiguredLength()
                context.service.autosave(now: now)
                context.service.takeSnapshots()
            }
            if now - lastIdempotencySweep >= 60 {
                lastIdempotencySweep = now
                context.idempotency.expire()
            }
        }
    }
}

extension ServerContext {
    /// Bodies this large are handled on `heavyWork`, not on the event loop that read them.
    static let heavyBodyBytes = 256 * 1024
    /// So are the operations in `wholeTextOperations` on a text this long (UTF-16 units).
    static let heavyTextLength = 256 * 1024
    /// Operations whose work grows with the document's text (they copy, diff or send all of
    /// it, or a group that may be as large), unlike a keystroke, whose cost hardly does.
    static let wholeTextOperations: Set<String> = [
        "getDocument", "getDocumentText", "replaceDocumentText", "listEdits", "documentEvents",
        "save", "getVersionText", "revertToVersion", "undo", "redo", "cut", "copy", "paste", "delete",
    ]

    /// Operations whose work grows with the change log rather than the text: a page of the
    /// log, an undo or redo mapped through every later change.
    static let historyOperations: Set<String> = ["listEdits", "undo", "redo"]

    /// Operations that read the store (a saved version's text, of any size, from SQLite or
    /// across the network from PostgreSQL): never on a loop, whatever the current text's length.
    static let storeReadOperations: Set<String> = ["listVersions", "getVersionText", "revertToVersion", "listDocuments",
                                                   "shareWithUser", "createPasteboard", "updatePasteboard"]

    func makeRouter() -> Router {
        var endpoints: [Endpoint] = []
        endpoints += sessionEndpoints
        endpoints += documentEndpoints
        endpoints += editEndpoints
        endpoints += historyEndpoints
        endpoints += eventEndpoints
        endpoints += versionEndpoints
        endpoints += pasteboardEndpoints
        endpoints += actionEndpoints
        endpoints += accessEndpoints
        endpoints = endpoints.map(ClientLimitsMiddleware.documentingLimit)
        let described = endpoints
        let openAPI = Mutex<[UInt8]?>(nil)
        endpoints += serviceEndpoints(openAPI: {
            openAPI.withLock { cached in
                if let cached { return cached }
                let bytes = JSONWriter.encode(OpenAPIDocument.build(described + self.serviceEndpoints(openAPI: { [] }), version: "1.0.0"))
                cached = bytes
                return bytes
            }
        })
        // The concerns every route shares, outermost first.
        let middleware: [any RouteMiddleware] = [
            ContentEncodingMiddleware(),
            MetricsMiddleware(metrics: metrics),
            ClientLimitsMiddleware(limiter: rateLimiter, clients: clients),
            ClusterSyncMiddleware(service: service),
            AuthenticationMiddleware(session: { [self] request throws(APIError) in try session(of: request) },
                                     link: { [service] token throws(APIError) in try service.verifyLink(token) },
                                     operatorKey: configuration.adminKey.map(OperatorKey.init),
                                     limiter: rateLimiter, clients: clients,
                                     proxy: proxyIdentity),
            GuestsMiddleware(guests: configuration.guests),
            AccessMiddleware(service: service),
            IdempotencyMiddleware(store: idempotency),
            HeavyWorkMiddleware(pool: service.heavyWork),
        ]
        var router = Router()
        for var e in endpoints {
            if e.path.hasPrefix("/documents/{id}") {
                guard let rule = RouteAccess.rule(for: e.operationID) else {
                    preconditionFailure("\(e.operationID) names a document but RouteAccess has no rule for it")
                }
                e.access = rule
            }
            let chain = middleware.wrap(e.handler, for: e)
            router.add(e.method, e.routerPattern) { request, responder in chain(request, RequestContext(), responder) }
        }
        let files = StaticFiles(root: configuration.publicDirectory)
        // Static files and unknown paths are counted as two routes, not one per path, so a
        // scan of random URLs cannot grow the metrics without bound.
        let fallbackMethods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other"]
        let staticRoutes = Dictionary(uniqueKeysWithValues: fallbackMethods.map { ($0, metrics.route(method: $0, route: "static")) })
        let unmatchedRoutes = Dictionary(uniqueKeysWithValues: fallbackMethods.map { ($0, metrics.route(method: $0, route: "unmatched")) })
        router.fallback = { [metrics] request, responder in
            let start = DispatchTime.now().uptimeNanoseconds
            let response = files.respond(to: request) ?? APIError.notFound("'\(request.path)'").response
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let routes = response.status.code == 404 ? unmatchedRoutes : staticRoutes
            let route = routes[request.method.rawValue] ?? routes["other"]!
            metrics.observeRequest(route, status: response.status.code, seconds: seconds)
            responder.send(ContentEncodingMiddleware.negotiate(response, to: request))
        }
        // The router's own answers (405, OPTIONS) pass no middleware either.
        router.finishing = { request, response in ContentEncodingMiddleware.negotiate(response, to: request) }
        return router
    }

    func expirePollers(now: Double) {
        for handle in service.documents.withLock({ Array($0.values) }) {
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

    func sendKeepAlives() {
        for handle in service.documents.withLock({ Array($0.values) }) { handle.events.send(ServerSentEvents.keepAlive) }
        pasteboards.events.send(ServerSentEvents.keepAlive)
    }
}
