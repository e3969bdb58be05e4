import Synchronization
import TandemHTTP
import TandemStore

/// The server's own routes: health, ping, metrics and the OpenAPI document.
final class ServiceController: Sendable {
    let service: DocumentService
    let metrics: Metrics
    let configuration: ServerConfiguration

    init(_ context: ServerContext) {
        service = context.service
        metrics = context.metrics
        configuration = context.configuration
    }

    func endpoints(openAPI: @escaping @Sendable () -> [UInt8]) -> [Endpoint] {
        [
            Endpoint(
                method: .get, path: "/healthz", operationID: "health",
                summary: "Liveness and storage health", tag: "Service",
                responses: [
                    Endpoint.json(200, "Serving, and the store commits", Schemas.ref("Health")),
                    Endpoint.json(503, "Serving, but the store cannot commit: changes answer 503 storage_failing", Schemas.ref("Health")),
                ],
                handler: { [self] _, _, res in res.send(healthResponse()) }
            ),
            Endpoint(
                method: .post, path: "/ping", operationID: "ping",
                summary: "Reads the body and answers its size, touching nothing: the HTTP layer's ceiling for load tests", tag: "Service",
                requestBody: ["required": false, "content": ["application/json": ["schema": .object([])]]],
                responses: [Endpoint.json(200, "The body's size in bytes", Schemas.object([("received", Schemas.nonNegative)], required: ["received"]))],
                handler: { req, _, res in
                    var w = JSONWriter(capacity: 24)
                    w.beginObject()
                    w.key("received"); w.int(req.body.count)
                    w.endObject()
                    res.send(.json(w.bytes))
                }
            ),
            Endpoint(
                method: .get, path: "/metrics", operationID: "metrics",
                summary: "Prometheus metrics", tag: "Service",
                responses: [Endpoint.Response(status: 200, description: "Prometheus text format 0.0.4", schema: ["type": "string"], mediaType: "text/plain")],
                handler: { [self] _, _, res in
                    res.send(HTTPResponse(status: .ok, contentType: "text/plain; version=0.0.4; charset=utf-8", body: Array(metrics.render().utf8)))
                }
            ),
            Endpoint(
                method: .get, path: "/openapi.json", operationID: "openapi",
                summary: "This API as an OpenAPI 3.1 document", tag: "Service",
                responses: [Endpoint.json(200, "The OpenAPI document", ["type": "object"])],
                handler: { _, _, res in res.send(.json(openAPI())) }
            ),
        ]
    }
}

extension ServiceController {
    /// `{"status","store","documents"}`, with `reason` and `since` while the store fails:
    /// 503 then, so that the container's health check (`tandem healthcheck`) sees it. From
    /// state kept off the loop (`storeHealth`): a slow database never slows this answer.
    func healthResponse() -> HTTPResponse {
        let health = service.storeHealth()
        // A small probe may commit while a document's own write still fails (a full disk
        // frees a page, not room for an edit): failing until every document has recovered.
        let failingDocuments = service.documentsFailingWrites.load(ordering: .relaxed)
        var w = JSONWriter(capacity: 128)
        w.beginObject()
        switch health {
        case .ok where failingDocuments > 0:
            w.key("status"); w.string("failing")
            w.key("store"); w.string("ok")
            w.key("reason"); w.string("the last write of \(failingDocuments) document(s) failed; they refuse changes until it succeeds")
        case .ok:
            w.key("status"); w.string("ok")
            w.key("store"); w.string("ok")
        case .failing(let error, let since):
            w.key("status"); w.string("failing")
            w.key("store"); w.string("failing")
            w.key("reason"); w.string(error.reason)
            w.key("since"); w.double(since)
        }
        w.key("documents"); w.int(service.documents.withLock { $0.count })
        w.key("database"); w.string(configuration.databaseURL == nil ? "sqlite" : "postgresql")
        if service.replication.shared {
            let reachable = if case .failing(.io, _) = health { false } else { true }
            w.key("databaseReachable"); w.bool(reachable)
        }
        w.key("failingDocuments"); w.int(failingDocuments)
        w.endObject()
        guard case .ok = health, failingDocuments == 0 else { return .json(w.bytes, status: .serviceUnavailable, headers: ["Retry-After": "5"]) }
        return .json(w.bytes)
    }
}
