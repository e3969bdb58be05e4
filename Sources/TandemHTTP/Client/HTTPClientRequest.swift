/// Where a forwarded request goes: another node, by name or address, and port.
public struct HTTPUpstream: Sendable, Hashable, CustomStringConvertible {
    /// A numeric address ("10.0.0.7", "::1") or a name; a name is resolved (blocking) the
    /// first time the pool connects to it, and again after a connect fails.
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// The `Host` field's value: IPv6 literals in brackets, the port unless it is 80.
    public var authority: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == 80 ? name : "\(name):\(port)"
    }

    public var description: String { authority }
}

/// One request to send upstream.
///
/// The client writes `Host` (the upstream's authority) and `Content-Length` itself, and
/// drops the hop-by-hop fields it is handed (RFC 9110 §7.6.1: `Connection`, the fields it
/// names, `Keep-Alive`, `TE`, `Trailer`, `Upgrade`, `Proxy-Connection`,
/// `Transfer-Encoding`): they concern the hop the request came in on, not this one.
public struct HTTPClientRequest: Sendable {
    public var method: HTTPMethod
    /// Origin-form: `/path?query` (or `*` for OPTIONS).
    public var target: String
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Longest silence allowed between two pieces of the answer's body; nil: none, for
    /// streams (Server-Sent Events) that may stay quiet for long.
    public var bodyIdleTimeout: Duration?
    /// Asks the upstream to close the connection after this answer (it is not reused).
    public var closeConnection: Bool
    /// An answer that lasts (an event stream): it gets a connection of its own, counted
    /// outside the pool's `maxConnectionsPerUpstream` while it lasts, so that streams never
    /// hold up short requests.
    public var longLived: Bool

    public init(method: HTTPMethod, target: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
                bodyIdleTimeout: Duration? = .seconds(30), closeConnection: Bool = false, longLived: Bool = false) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.bodyIdleTimeout = bodyIdleTimeout
        self.closeConnection = closeConnection
        self.longLived = longLived
    }

    /// Whether sending it twice has the effect of sending it once (RFC 9110 §9.2.2), or the
    /// caller vouches for that with an `Idempotency-Key`: only then is it retried.
    public var isRetryable: Bool {
        switch method.rawValue {
        case "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE": true
        default: headers.contains("Idempotency-Key")
        }
    }

    /// Whether the answer may carry a body: not to HEAD (RFC 9110 §9.3.2).
    var expectsResponseBody: Bool { method != .head }

    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "te", "trailer", "upgrade", "proxy-connection", "transfer-encoding",
        // Written by the client itself.
        "host", "content-length",
    ]

    /// The request as it goes on the wire, or why it cannot be written (a field that would
    /// break the framing: a CR or LF smuggled into a value would start a new header).
    func serialized(for upstream: HTTPUpstream) -> Result<[UInt8], HTTPClientError> {
        guard !method.rawValue.isEmpty, method.rawValue.utf8.allSatisfy(HTTPSyntax.isTokenChar) else {
            return .failure(HTTPClientError(.invalidRequest("method")))
        }
        guard target == "*" || target.hasPrefix("/"), target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(HTTPClientError(.invalidRequest("target must be origin-form")))
        }
        // Fields the handed `Connection` names are hop-by-hop too.
        var dropped = Self.hopByHop
        for value in headers.values("Connection") {
            for name in value.split(separator: ",") { dropped.insert(name.trimmingSpaces.lowercased()) }
        }
        var out: [UInt8] = []
        out.reserveCapacity(128 + target.utf8.count + body.count)
        out += method.rawValue.utf8
        out.append(HTTPSyntax.sp)
        out += target.utf8
        out += " HTTP/1.1\r\nHost: ".utf8
        out += upstream.authority.utf8
        out += [13, 10]
        for field in headers where !dropped.contains(field.name.lowercased()) {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(HTTPSyntax.isTokenChar),
                  field.value.utf8.allSatisfy(HTTPSyntax.isFieldValueChar) else {
                return .failure(HTTPClientError(.invalidRequest("header \(field.name.debugDescription)")))
            }
            out += field.name.utf8
            out += ": ".utf8
            out += field.value.utf8
            out += [13, 10]
        }
        // A length on every request that has a body or whose method usually has one
        // (RFC 9110 §8.6): a POST without it would be read as having no body anyway, but
        // some servers answer 411.
        if !body.isEmpty || method == .post || method == .put || method == .patch {
            out += "Content-Length: \(body.count)\r\n".utf8
        }
        if closeConnection { out += "Connection: close\r\n".utf8 }
        out += [13, 10]
        out += body
        return .success(out)
    }
}
