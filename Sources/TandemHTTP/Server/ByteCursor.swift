import Glibc

/// Writes bytes into a buffer sized beforehand (a string's storage being created, or the
/// room a response head reserved in the output): the access log line and the head of every
/// response are built this way, with no intermediate allocation and one capacity check.
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

    // memcpy: `initialize(fromContentsOf:)` copies element by element through a generic
    // collection path, and a response head makes many such copies (see docs/performance.md).
    @inline(__always)
    mutating func put(_ s: StaticString) {
        put(UnsafeRawPointer(s.utf8Start), s.utf8CodeUnitCount)
    }

    @inline(__always)
    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        if let p = bytes.baseAddress { put(UnsafeRawPointer(p), bytes.count) }
    }

    @inline(__always)
    mutating func put(_ s: String) {
        var s = s
        s.withUTF8 { put($0) }
    }

    @inline(__always)
    private mutating func put(_ p: UnsafeRawPointer, _ n: Int) {
        precondition(count + n <= base.count, "ByteCursor overflow")
        memcpy(base.baseAddress! + count, p, n)
        count += n
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
