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

/// Sends `pieces` to `slow` one at a time, 50 ms apart, with another client served in
/// between (`served` checks its answer); true once the server has cut `slow` off (it refused
/// a write or has an answer waiting), false if every piece went through.
func trickle(_ slow: TestClient, _ pieces: [[UInt8]], port: Int, served: (TestClient) throws -> Void) throws -> Bool {
    for piece in pieces {
        if (try? slow.send(piece)) == nil { return true }
        try served(TestClient(port: port))
        usleep(50_000)
        var pollfd = Glibc.pollfd(fd: slow.fd, events: Int16(POLLIN), revents: 0)
        if poll(&pollfd, 1, 0) > 0 { return true }
    }
    return false
}
