import TandemHTTP

/// In a cluster, the first step of every request: the node applies what other nodes committed
/// before the request arrived (`ClusterSync.syncCluster`), so that a request sees the same
/// documents, sessions and pasteboards whichever node it reaches. The sync runs on the
/// cluster's sync queue, not on the event loop; requests that arrive while one is under way
/// share the next, and go on on their connection's loop. A request that finds the database
/// unreachable is answered `503 database_unavailable` and changes nothing.
struct ClusterSyncMiddleware: RouteMiddleware {
    let service: DocumentService

    /// Operations that answer without the documents (liveness, the HTTP ceiling, metrics, the
    /// API's description): they work while the database is away.
    static let exempt: Set<String> = ["health", "ping", "metrics", "openapi"]

    func wrap(_ next: @escaping RouteHandler, for route: Endpoint) -> RouteHandler {
        guard service.replication.shared, !Self.exempt.contains(route.operationID) else { return next }
        return { [service] request, context, responder in
            service.replication.afterSync { failure in
                guard failure == nil else { return responder.send(APIError.databaseUnavailable.response) }
                request.executor.execute { next(request, context, responder) }
            }
        }
    }
}
