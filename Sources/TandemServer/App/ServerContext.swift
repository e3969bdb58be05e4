import Foundation
import Logging
import TandemCore
import TandemHTTP
import TandemStore

/// The composition root: the services every handler shares (the `DocumentService` that every
/// document mutation goes through, sessions, pasteboards, the idempotency store, limits) and
/// the housekeeping of sessions. It builds the route controllers, which each take what their
/// handlers need, and registers them behind the shared middleware (`makeRouter`).
final class ServerContext: Sendable {
    let configuration: ServerConfiguration
    let service: DocumentService
    let store: any DocumentStore
    let sessions: SessionRegistry
    let metrics: Metrics
    let idempotency: any IdempotencyStore
    let logger: Logger
    let pasteboards: PasteboardRegistry
    /// The per-client limits (`--rate-limit`) and whom they count (`--trusted-proxy`).
    let rateLimiter: RateLimiter
    let clients: ClientAddressResolver
    /// `--auth-header`: whom a trusted proxy names (nil without the option).
    let proxyIdentity: ProxyIdentity?
    /// The documents people open, for their lists.
    let opened: OpenedDocuments
    /// Sessions apart from requests: their ends, idle sweeps and stored activity.
    let sessionActivity: SessionActivity
    /// Where documents have owners (`--cluster leases`): which node serves each, and every
    /// document's stored row for the lists.
    let ownership: DocumentOwnership?
    /// The key this node presents to the others, and checks theirs against (`Tandem-Peer-Key`).
    let clusterKey: String?
    /// The event streams of documents held on other nodes, one for all their subscribers here.
    let mirrors: StreamMirrors?
    let directory: (@Sendable () throws(StoreError) -> [DirectoryEntry])?

    init(configuration: ServerConfiguration, store: any DocumentStore, sessions: SessionRegistry, metrics: Metrics,
         idempotency: any IdempotencyStore = IdempotencyCache(), replication: (any Replication)? = nil,
         ownership: DocumentOwnership? = nil, clusterKey: String? = nil,
         directory: (@Sendable () throws(StoreError) -> [DirectoryEntry])? = nil, logger: Logger) {
        let replication = replication ?? LocalReplication(store: store)
        self.ownership = ownership
        self.clusterKey = clusterKey
        mirrors = clusterKey.map { StreamMirrors(key: $0, coalescing: configuration.eventCoalescingMilliseconds / 1000) }
        self.directory = directory
        self.configuration = configuration
        self.idempotency = idempotency
        self.store = store
        self.sessions = sessions
        self.metrics = metrics
        self.logger = logger
        opened = OpenedDocuments(store: store, logger: logger)
        rateLimiter = RateLimiter(limits: configuration.rateLimits)
        clients = ClientAddressResolver(trustedProxies: configuration.trustedProxies)
        proxyIdentity = configuration.authHeader.map { [clients] in ProxyIdentity(header: $0, clients: clients) }
        let pasteboards = PasteboardRegistry(store: store, limits: PasteboardRegistry.limits(configuration.pasteboardLimits, maxBodyBytes: configuration.maxBodyBytes),
                                             budget: configuration.pasteboardBudget,
                                             events: EventChannel(coalescing: configuration.eventCoalescingMilliseconds / 1000),
                                             shared: replication.shared)
        self.pasteboards = pasteboards
        service = DocumentService(configuration: configuration, store: store, sessions: sessions, pasteboards: pasteboards,
                                  metrics: metrics, logger: logger, replication: replication) { RequestExecutor.current.map { e in Delivery(e.execute) } ?? .global }
        sessionActivity = SessionActivity(configuration: configuration, service: service, store: store, sessions: sessions,
                                          pasteboards: pasteboards, logger: logger)
    }

    func now() -> Double { Date().timeIntervalSince1970 }

    /// The calling session, nil for anonymous requests; a wrong or expired token is 401,
    /// never silently anonymous.
    func session(of request: HTTPRequest) throws(APIError) -> Session? {
        guard let header = request.headers["Authorization"] else { return nil }
        // Byte-level on purpose: Foundation's trimming bridges through NSString, and this runs
        // on every authenticated request.
        let utf8 = header.utf8
        guard let space = utf8.firstIndex(of: UInt8(ascii: " ")),
              HTTPHeaders.namesEqual(header[..<space], "bearer"),
              case let token = header[space...].trimmingSpaces, !token.isEmpty
        else {
            throw APIError(.unauthorized, "unauthorized", "Authorization must be 'Bearer <token>'",
                           headers: ["WWW-Authenticate": #"Bearer realm="tandem""#])
        }
        do {
            return try sessions.authenticate(token: String(token), now: now())
        } catch {
            throw .unauthorized
        }
    }
}

extension HTTPResponder {
    /// Runs `body` and answers with its response, or with the error it threw.
    func respond(_ body: () throws(APIError) -> HTTPResponse) {
        do {
            send(try body())
        } catch {
            send(error.response)
        }
    }

    /// Answers with a service's result, encoded by `encode`, or with its error.
    func send<Result>(_ result: Swift.Result<Result, APIError>, _ encode: (Result) -> HTTPResponse) {
        switch result {
        case .success(let value): send(encode(value))
        case .failure(let error): send(error.response)
        }
    }

    /// Answers with the response, or with the error: for an outcome handed to a completion.
    func send(_ result: Result<HTTPResponse, APIError>) {
        switch result {
        case .success(let response): send(response)
        case .failure(let error): send(error.response)
        }
    }
}
