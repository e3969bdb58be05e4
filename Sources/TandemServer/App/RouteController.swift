/// One concept's routes, in the style of Hummingbird's controllers: a small type holding only
/// what its handlers need, that registers its endpoints (paths, OpenAPI descriptions and
/// handlers). `ServerContext.makeRouter` builds every controller and wraps what they register
/// in the middleware all routes share.
protocol RouteController: Sendable {
    /// The controller's endpoints, in the order the OpenAPI document lists them.
    var endpoints: [Endpoint] { get }
}

extension RouteController {
    /// Adds the controller's endpoints after those registered before it.
    func register(on routes: inout [Endpoint]) {
        routes += endpoints
    }
}
