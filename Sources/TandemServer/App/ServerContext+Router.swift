import Dispatch
import Synchronization
import TandemCore
import TandemHTTP

/// The router that serves every controller's endpoints behind the shared middleware.
extension ServerContext {
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
            AuthorshipController(self),
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
        ] + (ownership.map { [DocumentPlacementMiddleware(ownership: $0, mirrors: mirrors)] } ?? []) + [
            ClusterSyncMiddleware(service: service),
            AuthenticationMiddleware(session: { [self] request throws(APIError) in try session(of: request) },
                                     link: { [service] token throws(APIError) in try service.handles.verifyLink(token, now: service.now()) },
                                     operatorKey: configuration.adminKey.map(OperatorKey.init),
                                     peerKey: clusterKey.map(OperatorKey.init),
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
