import Dispatch
import TandemHTTP

/// Keeps work that grows with its input off the event loop that read it: a body of
/// `heavyBodyBytes` or more, or a whole-text operation (`wholeTextOperations`) on a text of
/// `heavyTextLength` units or more, runs on `queue`; every other connection on that loop
/// would wait for it otherwise.
struct HeavyWorkMiddleware: RouteMiddleware {
    let queue: DispatchQueue

    func wrap(_ next: @escaping RouteHandler, for route: Endpoint) -> RouteHandler {
        let wholeText = ServerContext.wholeTextOperations.contains(route.operationID)
        return { [queue] request, context, responder in
            // The document `AccessMiddleware` found; its length read without its lock.
            let textLength = context.document?.lengthHint.load(ordering: .relaxed) ?? 0
            if request.body.count >= ServerContext.heavyBodyBytes
                || (wholeText && textLength >= ServerContext.heavyTextLength) {
                queue.async { next(request, context, responder) }
            } else {
                next(request, context, responder)
            }
        }
    }
}
