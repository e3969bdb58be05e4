/// Writes bytes into a buffer sized beforehand (a string's storage being created): the
/// access log line of every request is built this way, with no intermediate allocation.
/// The caller reserves enough room: the strings' UTF-8 lengths plus 20 bytes per decimal.
struct ByteCursor {
    let base: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0

    init(_ base: UnsafeMutableBufferPointer<UInt8>) { self.base = base }

    @inline(__always)
    mutating func put(_ byte: UInt8) {
        base[count] = byte
        count += 1
    }

    mutating func put(_ s: String) {
        let copied = s.utf8.withContiguousStorageIfAvailable { bytes in
            UnsafeMutableBufferPointer(rebasing: base[count..<count + bytes.count]).initialize(fromContentsOf: bytes)
        }
        if let copied {
            count += copied
        } else {
            for b in s.utf8 { put(b) }
        }
    }

    mutating func putDecimal(_ value: Int) {
        if value < 0 {
            put(UInt8(ascii: "-"))
            return putDecimal(0 &- value)
        }
        var digits = 1, rest = value / 10
        while rest > 0 { digits += 1; rest /= 10 }
        var n = value
        for i in stride(from: count + digits - 1, through: count, by: -1) {
            base[i] = UInt8(48 + n % 10)
            n /= 10
        }
        count += digits
    }
}
