import Glibc

/// A growable byte window over one allocation: reads land straight in its free tail and
/// parsed bytes are dropped from its head, so the hot loops copy nothing they do not have to.
final class ByteBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    private(set) var start = 0
    private(set) var end = 0

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    var count: Int { end - start }
    var bytes: UnsafeMutablePointer<UInt8> { base + start }

    func consume(_ n: Int) {
        start += n
        if start >= end { start = 0; end = 0 }
    }

    func removeAll() { start = 0; end = 0 }

    /// Counts `n` bytes written straight into the free tail (after `reserve`).
    func grow(by n: Int) { end += n }

    /// Makes room for `n` more bytes at the tail.
    func reserve(_ n: Int) {
        if capacity - end >= n { return }
        if start > 0 {
            (base).update(from: base + start, count: end - start)
            end -= start
            start = 0
            if capacity - end >= n { return }
        }
        var newCapacity = capacity * 2
        while newCapacity - end < n { newCapacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: base, count: end)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }

    func append(_ p: UnsafePointer<UInt8>, _ n: Int) {
        reserve(n)
        (base + end).update(from: p, count: n)
        end += n
    }

    func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0.baseAddress!, $0.count) }
    }

    func appendDecimal(_ value: Int) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 20 digits and a sign
        withUnsafeMutableBytes(of: &digits) { raw in
            let p = raw.bindMemory(to: UInt8.self)
            var v = value.magnitude
            var i = p.count
            repeat {
                i -= 1
                p[i] = UInt8(48 + v % 10)
                v /= 10
            } while v > 0
            if value < 0 { i -= 1; p[i] = UInt8(ascii: "-") }
            append(p.baseAddress! + i, p.count - i)
        }
    }

    /// One `read` into the free tail (at least `atLeast` bytes of it): the byte count, 0 at
    /// end of stream, -1 with errno set.
    func read(from fd: Int32, atLeast: Int) -> Int {
        reserve(atLeast)
        let n = Glibc.read(fd, base + end, capacity - end)
        if n > 0 { end += n }
        return n
    }
}
