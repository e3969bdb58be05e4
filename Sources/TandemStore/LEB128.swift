/// Unsigned LEB128 varints: seven bits a byte, the lowest first, the high bit set on every
/// byte but the last. `ChangeRun` frames the changes of a stored run with them, and the
/// server's binary journal form stores its integers so.
public enum LEB128 {
    public enum ReadError: Error, Equatable {
        /// The bytes end inside the varint.
        case truncated
        /// More than 64 bits: a tenth byte above 1, or an eleventh byte.
        case tooLong
    }

    @inlinable
    public static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// The varint at `index`, which is moved past it.
    public static func read(_ bytes: [UInt8], at index: inout Int) throws(ReadError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard index < bytes.count else { throw .truncated }
            let byte = bytes[index]
            // The tenth byte holds the last bit of 64: anything above is damage.
            guard shift < 63 || byte <= 1 else { throw .tooLong }
            index += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }
}
