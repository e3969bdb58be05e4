import Glibc

/// A client's address as 128 bits, IPv4 as IPv4-mapped IPv6 (`::ffff:a.b.c.d`): a dual-stack
/// listener reports IPv4 peers that way, and one form keeps `127.0.0.1` one client however
/// it arrived.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    public var high: UInt64
    public var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// `a.b.c.d` or an IPv6 literal (no brackets, no zone).
    public init?(_ text: some StringProtocol) {
        var v4 = in_addr(), v6 = in6_addr()
        let s = String(text)
        if inet_pton(AF_INET, s, &v4) == 1 {
            self.init(ipv4: UInt32(bigEndian: v4.s_addr))
        } else if inet_pton(AF_INET6, s, &v6) == 1 {
            self = withUnsafeBytes(of: &v6) { Self(bytes: $0) }
        } else {
            return nil
        }
    }

    /// The address part of a peer as `SocketAddress.describe` writes it: `a.b.c.d:port`
    /// or `[v6]:port`.
    public init?(peer: String) {
        if peer.hasPrefix("["), let close = peer.firstIndex(of: "]") {
            self.init(peer[peer.index(after: peer.startIndex)..<close])
        } else if let colon = peer.lastIndex(of: ":") {
            self.init(peer[..<colon])
        } else {
            self.init(peer)
        }
    }

    init(ipv4: UInt32) {
        high = 0
        low = 0xFFFF_0000_0000 | UInt64(ipv4)
    }

    init(bytes: UnsafeRawBufferPointer) {
        var h: UInt64 = 0, l: UInt64 = 0
        for i in 0..<8 { h = h << 8 | UInt64(bytes[i]) }
        for i in 8..<16 { l = l << 8 | UInt64(bytes[i]) }
        high = h
        low = l
    }

    /// The peer of an accepted socket.
    init?(_ storage: sockaddr_storage) {
        var s = storage
        switch Int32(s.ss_family) {
        case AF_INET:
            let v4 = withUnsafePointer(to: &s) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr } }
            self.init(ipv4: UInt32(bigEndian: v4))
        case AF_INET6:
            var v6 = withUnsafePointer(to: &s) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr } }
            self = withUnsafeBytes(of: &v6) { Self(bytes: $0) }
        default:
            return nil
        }
    }

    public var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }

    /// Whom a limit counts: the address itself for IPv4, its /64 for IPv6, since one
    /// IPv6 host commonly holds a whole /64 and could otherwise change address per request.
    public var limitKey: IPAddress { isIPv4 ? self : IPAddress(high: high, low: 0) }

    public var description: String {
        if isIPv4 {
            let v = UInt32(truncatingIfNeeded: low)
            return "\(v >> 24).\(v >> 16 & 0xFF).\(v >> 8 & 0xFF).\(v & 0xFF)"
        }
        var v6 = in6_addr()
        withUnsafeMutableBytes(of: &v6) { b in
            for i in 0..<8 { b[i] = UInt8(truncatingIfNeeded: high >> UInt64(56 - 8 * i)) }
            for i in 0..<8 { b[8 + i] = UInt8(truncatingIfNeeded: low >> UInt64(56 - 8 * i)) }
        }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count))
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}

/// An address range, `10.0.0.0/8` or `fd00::/8`; a bare address is its own /32 or /128.
public struct CIDR: Sendable, Equatable, CustomStringConvertible {
    public let network: IPAddress
    /// In the 128-bit space (an IPv4 /8 is 104 here).
    let prefix: Int
    public let description: String

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else { return nil }
        let width = address.isIPv4 && !parts[0].contains(":") ? 32 : 128
        var bits = width
        if parts.count == 2 {
            guard let n = Int(parts[1]), (0...width).contains(n), parts[1].allSatisfy(\.isASCII) else { return nil }
            bits = n
        }
        prefix = bits + (128 - width)
        network = CIDR.masked(address, prefix)
        description = text
    }

    public func contains(_ address: IPAddress) -> Bool {
        CIDR.masked(address, prefix) == network
    }

    static func masked(_ a: IPAddress, _ prefix: Int) -> IPAddress {
        let highMask: UInt64 = prefix >= 64 ? .max : (prefix == 0 ? 0 : ~0 << UInt64(64 - prefix))
        let lowMask: UInt64 = prefix <= 64 ? 0 : (prefix == 128 ? .max : ~0 << UInt64(128 - prefix))
        return IPAddress(high: a.high & highMask, low: a.low & lowMask)
    }
}
