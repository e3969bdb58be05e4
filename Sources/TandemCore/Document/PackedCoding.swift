/// Large numeric arrays of a snapshot (the change log's columns, the undo groups) coded as
/// one base64 string of their little-endian bytes instead of one JSON number each: a busy
/// document snapshots every few thousand changes, too often to code its arrays element by
/// element (see docs/performance.md). Decoding also
/// takes the older form, a JSON array of numbers, so snapshots written before still load.
enum PackedCoding {
    static func encode<T: FixedWidthInteger>(_ values: [T]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * MemoryLayout<T>.size)
        for v in values { append(v, to: &bytes) }
        return Base64.encode(bytes)
    }

    static func encode(_ values: [Double]) -> String { encode(values.map(\.bitPattern)) }

    static func decode<T: FixedWidthInteger & Decodable, K: CodingKey>(
        _ type: T.Type, _ container: KeyedDecodingContainer<K>, _ key: K
    ) throws -> [T] {
        guard let packed = try? container.decode(String.self, forKey: key) else {
            return try container.decode([T].self, forKey: key)
        }
        let bytes = try bytes(of: packed, container, key)
        let size = MemoryLayout<T>.size
        guard bytes.count % size == 0 else { throw corrupt(container, key) }
        var result: [T] = []
        result.reserveCapacity(bytes.count / size)
        var i = 0
        while i < bytes.count {
            result.append(read(T.self, bytes, at: i))
            i += size
        }
        return result
    }

    static func decodeDoubles<K: CodingKey>(_ container: KeyedDecodingContainer<K>, _ key: K) throws -> [Double] {
        guard (try? container.decode(String.self, forKey: key)) != nil else {
            return try container.decode([Double].self, forKey: key)
        }
        return try decode(UInt64.self, container, key).map(Double.init(bitPattern:))
    }

    static func bytes<K: CodingKey>(of packed: String, _ container: KeyedDecodingContainer<K>, _ key: K) throws -> [UInt8] {
        guard let bytes = Base64.decode(packed) else { throw corrupt(container, key) }
        return bytes
    }

    static func corrupt<K: CodingKey>(_ container: KeyedDecodingContainer<K>, _ key: K) -> DecodingError {
        .dataCorruptedError(forKey: key, in: container, debugDescription: "not a packed array")
    }

    @inline(__always)
    static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        var v = value.littleEndian
        for _ in 0..<MemoryLayout<T>.size {
            bytes.append(UInt8(truncatingIfNeeded: v))
            v = v >> 8
        }
    }

    @inline(__always)
    static func read<T: FixedWidthInteger>(_ type: T.Type, _ bytes: [UInt8], at offset: Int) -> T {
        var v: T = 0
        for k in (0..<MemoryLayout<T>.size).reversed() { v = (v << 8) | T(truncatingIfNeeded: bytes[offset + k]) }
        return v
    }
}

/// RFC 4648 base64, standard alphabet with padding. TandemCore has no Foundation.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 2 < bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out.append(alphabet[Int(n >> 18 & 63)]); out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)]); out.append(alphabet[Int(n & 63)])
            i += 3
        }
        let rest = bytes.count - i
        if rest > 0 {
            let n = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
            out.append(alphabet[Int(n >> 18 & 63)]); out.append(alphabet[Int(n >> 12 & 63)])
            out.append(rest == 2 ? alphabet[Int(n >> 6 & 63)] : UInt8(ascii: "="))
            out.append(UInt8(ascii: "="))
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ string: String) -> [UInt8]? {
        let chars = Array(string.utf8)
        guard chars.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 4 * 3)
        var i = 0
        while i < chars.count {
            var n: UInt32 = 0
            var padding = 0
            for k in 0..<4 {
                let c = chars[i + k]
                if c == UInt8(ascii: "="), i + 4 == chars.count, k >= 2 {
                    padding += 1
                    n <<= 6
                    continue
                }
                guard padding == 0 else { return nil }
                let v = values[Int(c)]
                guard v != 0xFF else { return nil }
                n = n << 6 | UInt32(v)
            }
            out.append(UInt8(n >> 16 & 0xFF))
            if padding < 2 { out.append(UInt8(n >> 8 & 0xFF)) }
            if padding < 1 { out.append(UInt8(n & 0xFF)) }
            i += 4
        }
        return out
    }
}
