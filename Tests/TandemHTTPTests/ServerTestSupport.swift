import Dispatch
import Glibc
import Logging
import TandemHTTP

/// Starts a server on an ephemeral port with short timeouts, runs `body`, shuts it down.
func withServer(
    _ tune: (inout HTTPServer.Configuration) -> Void = { _ in },
    handler: @escaping HTTPHandler,
    _ body: (HTTPServer) throws -> Void
) throws {
    var logger = Logger(label: "test")
    logger.logLevel = .critical
    var config = HTTPServer.Configuration(
        host: "127.0.0.1", port: 0, eventLoopCount: 2,
        limits: HTTPLimits(maxTargetLength: 256, maxHeaderBytes: 1024, maxBodyBytes: 4096),
        timeouts: .init(headerRead: .seconds(2), bodyRead: .seconds(2), idle: .seconds(5), write: .seconds(5)),
        logger: logger)
    tune(&config)
    let server = HTTPServer(configuration: config, handler: handler)
    try server.start()
    defer { server.shutdown(gracePeriod: .seconds(1)) }
    try body(server)
}

/// A handler echoing what it saw: `METHOD target body [trailer X-Sum]`.
let echoHandler: HTTPHandler = { request, responder in
    var text = "\(request.method.rawValue) \(request.target) \(String(decoding: request.body, as: UTF8.self))"
    if let sum = request.trailers["X-Sum"] { text += " sum=\(sum)" }
    responder.send(.text(text))
}

/// Runs `work` on another thread after `milliseconds`.
func later(_ milliseconds: Int, _ work: @escaping @Sendable () -> Void) {
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds), execute: work)
}
