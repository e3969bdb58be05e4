import TandemHTTP

/// Decides, for a route that names a document, whether the caller may do what the route
/// does there (`AccessPolicy`), and hands the document and the caller's role down the chain.
/// A caller who may not know a private document exists gets exactly what an unknown id gets.
struct AccessMiddleware: RouteMiddleware {
    let service: DocumentService

    func wrap(_ next: @escaping RouteHandler, for route: Endpoint) -> RouteHandler {
        let rule = route.access
        if case .none = rule { return next }
        return { [service] request, context, responder in
            let id = request.parameters["id"] ?? ""
            guard let handle = service.documents.withLock({ $0[id] }) else {
                return responder.send(APIError.notFound("document '\(id)'").response)
            }
            let rules = handle.access.withLock { $0 }
            let role = rules.role(of: context.caller, in: id)
            let permission: Permission
            switch rule {
            case .none: permission = .read
            case .document(let p): permission = p
            case .decided(let decide): permission = decide(request, context.caller.session != nil)
            }
            switch AccessPolicy.decide(permission, mode: rules.access, role: role, hasSession: context.caller.session != nil) {
            case .allowed:
                var context = context
                context.document = handle
                context.role = role
                next(request, context, responder)
            case .hidden:
                responder.send(APIError.notFound("document '\(id)'").response)
            case .refused(let error):
                responder.send(error.response)
            }
        }
    }
}
