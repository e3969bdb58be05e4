/// The head of an upstream's answer (interim 1xx answers are never delivered).
public struct HTTPClientResponseHead: Sendable, Equatable {
    public var status: Int
    public var reason: String
    public var version: HTTPVersion
    /// As received, in order, names lowercased; hop-by-hop fields included (a relay drops them).
    public var headers: HTTPHeaders

    public init(status: Int, reason: String = "", version: HTTPVersion = .http1_1, headers: HTTPHeaders = [:]) {
        self.status = status
        self.reason = reason
        self.version = version
        self.headers = headers
    }

    init(_ head: HTTPResponseParser.Head) {
        self.init(status: head.status, reason: head.reason, version: HTTPVersion(major: 1, minor: head.minorVersion),
                  headers: HTTPHeaders(head.headers.map { ($0.name, $0.value) }))
    }
}

/// What receives an upstream's answer, on the pool's loop thread, in this order: `head`
/// once, `body` any number of times (de-chunked pieces, as they arrive), then `end` once.
/// A failure may come at any point, before the head too; nothing comes after `end`, and
/// nothing at all once the request is cancelled.
public protocol HTTPClientResponseHandler {
    func head(_ head: HTTPClientResponseHead)
    func body(_ bytes: [UInt8])
    func end(_ result: Result<Void, HTTPClientError>)
}

/// A handler made of three closures.
public struct HTTPClientClosureHandler: HTTPClientResponseHandler {
    let onHead: (HTTPClientResponseHead) -> Void
    let onBody: ([UInt8]) -> Void
    let onEnd: (Result<Void, HTTPClientError>) -> Void

    public init(onHead: @escaping (HTTPClientResponseHead) -> Void, onBody: @escaping ([UInt8]) -> Void,
                onEnd: @escaping (Result<Void, HTTPClientError>) -> Void) {
        self.onHead = onHead
        self.onBody = onBody
        self.onEnd = onEnd
    }

    public func head(_ head: HTTPClientResponseHead) { onHead(head) }
    public func body(_ bytes: [UInt8]) { onBody(bytes) }
    public func end(_ result: Result<Void, HTTPClientError>) { onEnd(result) }
}
