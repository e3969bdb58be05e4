import Dispatch
import TandemHTTP

/// Counts every answer of the route by status and observes how long it took, from the
/// moment the request reached the route to the moment its answer was handed back.
struct MetricsMiddleware: RouteMiddleware {
    let metrics: Metrics

    func wrap(_ next: @escaping RouteHandler, for route: Endpoint) -> RouteHandler {
        let counted = metrics.route(method: route.method.rawValue, route: route.path)
        return { [metrics] request, context, responder in
            let start = DispatchTime.now().uptimeNanoseconds
            next(request, context, HTTPResponder { response in
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                metrics.observeRequest(counted, status: response.status.code, seconds: seconds)
                responder.send(response)
            })
        }
    }
}
