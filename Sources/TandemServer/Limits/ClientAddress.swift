import TandemHTTP

/// Which client a request is from, for the per-client limits: the peer, or behind a trusted
/// proxy (`--trusted-proxy`) the address it names in `X-Forwarded-For`. A header from any
/// other peer is ignored: anyone can write one.
struct ClientAddressResolver: Sendable {
    let trustedProxies: [CIDR]

    func isTrusted(_ address: IPAddress) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }

    /// Nil only for a request made without a socket (tests calling a handler directly).
    func client(of request: HTTPRequest) -> IPAddress? {
        guard let peer = IPAddress(peer: request.remoteAddress) else { return nil }
        guard !trustedProxies.isEmpty, isTrusted(peer), let forwarded = request.headers["X-Forwarded-For"] else { return peer }
        // Right to left: each trusted hop appended the address it saw, so the first
        // untrusted one is the client; a forged entry further left is never reached.
        var client = peer
        for entry in forwarded.split(separator: ",").reversed() {
            guard let address = IPAddress(entry.trimmingASCIISpaces) else { break }
            client = address
            if !isTrusted(address) { break }
        }
        return client
    }
}

extension Substring {
    fileprivate var trimmingASCIISpaces: Substring {
        var s = self
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return s
    }
}
