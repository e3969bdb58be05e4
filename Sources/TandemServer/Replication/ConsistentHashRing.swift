/// The node a balancer configured with nginx's `hash $key consistent` sends a key to, computed
/// as nginx does (ketama, compatible with Cache::Memcached::Fast), so that a document's lease
/// goes to the node its requests reach and most requests need no hop (docs/scale-out.md).
///
/// Each server, named as in the balancer's `upstream` block (`tandem1:8080`), puts 160 points on
/// a ring of 32-bit hashes: `crc32(host "\0" port prev)`, `prev` being the point before it (4
/// bytes, little-endian), starting from 0. A key goes to the first point at or after
/// `crc32(key)`, wrapping around; a server that is down passes the key to the next point's.
struct ConsistentHashRing: Sendable {
    let servers: [String]
    private let points: [(hash: UInt32, server: Int)]

    static let pointsPerServer = 160

    init(servers: [String]) {
        self.servers = servers
        var points: [(hash: UInt32, server: Int)] = []
        points.reserveCapacity(servers.count * Self.pointsPerServer)
        for (index, server) in servers.enumerated() {
            let (host, port) = Self.split(server)
            let base = CRC32().adding(host).adding([0]).adding(port)
            var previous: UInt32 = 0
            for _ in 0..<Self.pointsPerServer {
                let bytes = withUnsafeBytes(of: previous.littleEndian) { Array($0) }
                let hash = base.adding(bytes).value
                points.append((hash, index))
                previous = hash
            }
        }
        points.sort { $0.hash < $1.hash }
        // Equal hashes keep one point, as nginx's ring does.
        var unique: [(hash: UInt32, server: Int)] = []
        for point in points where unique.last?.hash != point.hash { unique.append(point) }
        self.points = unique
    }

    /// The server `key` goes to, skipping those `isUp` says are down (nginx tries 20 points,
    /// then falls back to round robin: here, nil).
    func server(for key: String, isUp: (String) -> Bool = { _ in true }) -> String? {
        guard !points.isEmpty else { return nil }
        var index = firstPoint(atOrAfter: CRC32().adding(Array(key.utf8)).value)
        for _ in 0..<20 {
            let server = servers[points[index % points.count].server]
            if isUp(server) { return server }
            index += 1
        }
        return nil
    }

    /// The index of the first point whose hash is at least `hash` (`points.count` if none).
    private func firstPoint(atOrAfter hash: UInt32) -> Int {
        var low = 0, high = points.count
        while low < high {
            let middle = (low + high) / 2
            if points[middle].hash < hash { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// nginx's split of `host:port`: the digits after the last colon are the port; a
    /// `unix:` path has none.
    static func split(_ server: String) -> (host: [UInt8], port: [UInt8]) {
        let bytes = Array(server.utf8)
        if bytes.count >= 5, String(decoding: bytes.prefix(5), as: UTF8.self).lowercased() == "unix:" {
            return (Array(bytes.dropFirst(5)), [])
        }
        var j = 0
        while j < bytes.count {
            let c = bytes[bytes.count - j - 1]
            if c == UInt8(ascii: ":") { return (Array(bytes.prefix(bytes.count - j - 1)), Array(bytes.suffix(j))) }
            if c < UInt8(ascii: "0") || c > UInt8(ascii: "9") { break }
            j += 1
        }
        return (bytes, [])
    }
}

/// CRC-32 (IEEE 802.3, reflected), as zlib and nginx compute it, fed piece by piece.
struct CRC32: Sendable {
    private var state: UInt32 = 0xFFFF_FFFF

    var value: UInt32 { state ^ 0xFFFF_FFFF }

    func adding(_ bytes: [UInt8]) -> CRC32 {
        var next = self
        for byte in bytes {
            next.state = Self.table[Int((next.state ^ UInt32(byte)) & 0xFF)] ^ (next.state >> 8)
        }
        return next
    }

    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }
}
