import Dispatch
import Synchronization
import TandemCore
import TandemHTTP

/// The routes: which run off the event loops (`HeavyWorkMiddleware`), and the router that
/// serves every controller's endpoints behind the shared middleware.
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

    /// `EditController.decodeEdit`, where the tests and the fuzzer call it.
    static func decodeEdit(_ req: HTTPRequest) throws(APIError) -> EditRequest {
        try EditController.decodeEdit(req)
    }

    /// `EditController.decodeEditTree`, where the tests and the fuzzer call it.
    static func decodeEditTree(_ req: HTTPRequest) throws(APIError) -> EditRequest {
        try EditController.decodeEditTree(req)
    }

    /// `DocumentController.isValidDocumentID`, where grants and pasteboard names check theirs.
    static func isValidDocumentID(_ id: String) -> Bool {
        DocumentController.isValidDocumentID(id)
    }

    /// Builds every route controller, registers their endpoints in the order the OpenAPI
    /// document lists them, and wraps each in the shared middleware.
    func makeRouter() -> Router {
        // The composition root: each controller takes from here what its handlers need.
        let accounts = AccountController(self)
        let controllers: [any RouteController] = [
            SessionController(self, accounts: accounts),
            DocumentController(self),
            EditController(self),
            HistoryController(self),
            EventController(self),
            VersionController(self),
            PasteboardController(self),
            ActionController(self),
            AccessController(self),
        ]
        var endpoints: [Endpoint] = []
        for controller in controllers { controller.register(on: &endpoints) }
        endpoints = endpoints.map(ClientLimitsMiddleware.documentingLimit)
        let described = endpoints
        let openAPI = Mutex<[UInt8]?>(nil)
        let serviceRoutes = ServiceController(self)
        endpoints += serviceRoutes.endpoints(openAPI: {
            openAPI.withLock { cached in
                if let cached { return cached }
                let bytes = JSONWriter.encode(OpenAPIDocument.build(described + serviceRoutes.endpoints(openAPI: { [] }), version: "1.0.0"))
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
}
