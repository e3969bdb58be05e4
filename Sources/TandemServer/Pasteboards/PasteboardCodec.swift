import TandemCore

/// The stored form of a pasteboard's items (`StoredPasteboard.payload`): a version byte,
/// then counts and lengths as 32-bit big-endian integers around the raw type and data bytes.
enum PasteboardCodec {
    static let version: UInt8 = 1

    static func encode(_ items: [PasteboardItem]) -> [UInt8] {
        var out: [UInt8] = [version]
        out.reserveCapacity(5 + items.reduce(0) { $0 + 4 + $1.byteCount + 40 * $1.representations.count })
        append(UInt32(items.count), to: &out)
        for item in items {
            append(UInt32(item.representations.count), to: &out)
            for r in item.representations {
                let type = Array(r.type.utf8)
                append(UInt32(type.count), to: &out)
                out += type
                append(UInt32(r.data.count), to: &out)
                out += r.data
            }
        }
        return out
    }

    struct Malformed: Error {}

    static func decode(_ bytes: [UInt8]) throws(Malformed) -> [PasteboardItem] {
        var i = 0
        func u32() throws(Malformed) -> Int {
            guard i + 4 <= bytes.count else { throw Malformed() }
            defer { i += 4 }
            return Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
        }
        func take(_ n: Int) throws(Malformed) -> ArraySlice<UInt8> {
            guard n >= 0, i + n <= bytes.count else { throw Malformed() }
            defer { i += n }
            return bytes[i..<(i + n)]
        }
        guard bytes.first == version else { throw Malformed() }
        i = 1
        var items: [PasteboardItem] = []
        for _ in 0..<(try u32()) {
            var reps: [PasteboardRepresentation] = []
            for _ in 0..<(try u32()) {
                guard let type = String(validating: try take(try u32()), as: UTF8.self) else { throw Malformed() }
                reps.append(PasteboardRepresentation(type: type, data: Array(try take(try u32()))))
            }
            items.append(PasteboardItem(reps))
        }
        guard i == bytes.count else { throw Malformed() }
        return items
    }

    private static func append(_ v: UInt32, to out: inout [UInt8]) {
        out += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
}
