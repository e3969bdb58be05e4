import CLinux
import Glibc

public enum HTTPServerError: Error, CustomStringConvertible {
    case system(String, Int32)
    case resolve(String, String)
    case alreadyStarted
    case addressInUse(String)

    public var description: String {
        switch self {
        case .addressInUse(let address): "\(address): address already in use (another tandem serve, or another program, listens there)"
        case .system(let call, let code): "\(call): \(String(cString: strerror(code)))"
        case .resolve(let host, let why): "cannot resolve \(host): \(why)"
        case .alreadyStarted: "the server was already started"
        }
    }
}

enum SocketAddress {
    /// "host:port" of a peer, "[v6]:port" for IPv6.
    static func describe(_ storage: sockaddr_storage) -> String {
        var s = storage
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(s.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &s) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                    var addr = sin.pointee.sin_addr
                    inet_ntop(AF_INET, &addr, &buffer, socklen_t(buffer.count))
                    return "\(buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }):\(UInt16(bigEndian: sin.pointee.sin_port))"
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &s) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin in
                    var addr = sin.pointee.sin6_addr
                    inet_ntop(AF_INET6, &addr, &buffer, socklen_t(buffer.count))
                    return "[\(buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })]:\(UInt16(bigEndian: sin.pointee.sin6_port))"
                }
            }
        default:
            return "unknown"
        }
    }

    /// Every address `host` names, for a passive TCP socket on `port`.
    static func resolve(host: String, port: Int) throws -> [sockaddr_storage] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host.isEmpty ? nil : host, String(port), &hints, &result)
        guard rc == 0, let first = result else { throw HTTPServerError.resolve(host, String(cString: gai_strerror(rc))) }
        defer { freeaddrinfo(first) }
        var out: [sockaddr_storage] = []
        var seen: Set<String> = []
        var p: UnsafeMutablePointer<addrinfo>? = first
        while let ai = p {
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { dst in
                dst.copyMemory(from: UnsafeRawBufferPointer(start: ai.pointee.ai_addr, count: Int(ai.pointee.ai_addrlen)))
            }
            if seen.insert(describe(storage)).inserted { out.append(storage) }
            p = ai.pointee.ai_next
        }
        return out
    }

    static func setPort(_ storage: inout sockaddr_storage, _ port: Int) {
        withUnsafeMutablePointer(to: &storage) { p in
            if Int32(p.pointee.ss_family) == AF_INET {
                p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port = UInt16(port).bigEndian }
            } else {
                p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port = UInt16(port).bigEndian }
            }
        }
    }

    static func port(of fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return withUnsafePointer(to: &storage) { p in
            if Int32(p.pointee.ss_family) == AF_INET {
                return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
            return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
        }
    }

    /// A non-blocking listening socket with SO_REUSEADDR ("::" is dual-stack), and
    /// SO_REUSEPORT when `shared`: the loops of this process each bind their own.
    static func listen(on address: sockaddr_storage, shared: Bool) throws -> Int32 {
        let fd = try bound(address, reusePort: shared)
        guard Glibc.listen(fd, 1024) == 0 else {
            let e = errno
            Glibc.close(fd)
            throw HTTPServerError.system("listen", e)
        }
        return fd
    }

    /// Fails with `addressInUse` if any socket (of any process) is bound to `address`: a
    /// socket without SO_REUSEPORT cannot share a port, so a second server is refused before
    /// its loops bind theirs with it. Nothing stays bound.
    static func requireUnused(_ address: sockaddr_storage) throws {
        Glibc.close(try bound(address, reusePort: false))
    }

    private static func bound(_ address: sockaddr_storage, reusePort: Bool) throws -> Int32 {
        let family = Int32(address.ss_family)
        let fd = socket(family, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HTTPServerError.system("socket", errno) }
        var one: Int32 = 1, zero: Int32 = 0
        let size = socklen_t(MemoryLayout<Int32>.size)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, size)
        if reusePort { setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, size) }
        if family == AF_INET6 { setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &zero, size) }
        var a = address
        let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
        let rc = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard rc == 0 else {
            let e = errno
            Glibc.close(fd)
            if e == EADDRINUSE { throw HTTPServerError.addressInUse(describe(address)) }
            throw HTTPServerError.system("bind \(describe(address))", e)
        }
        return fd
    }
}
