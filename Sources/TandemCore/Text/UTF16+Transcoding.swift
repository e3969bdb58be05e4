extension String {
    /// The text of UTF-16 code units, an unpaired surrogate read as U+FFFD: what
    /// `String(decoding:as: UTF16.self)` makes, without going a scalar at a time through the
    /// standard library's generic repairing parser (Swift's strings are UTF-8). A document's
    /// snapshot turns its whole text into a String under the document's lock, so every edit
    /// waits for this (see docs/performance.md).
    public init<Units: Collection<UInt16>>(utf16Units units: Units) {
        let decoded = units.withContiguousStorageIfAvailable(String.init(utf16Buffer:))
        self = decoded ?? ContiguousArray(units).withUnsafeBufferPointer(String.init(utf16Buffer:))
    }

    private init(utf16Buffer src: UnsafeBufferPointer<UInt16>) {
        let n = src.count
        guard n > 0 else { self = ""; return }
        // At most 3 UTF-8 bytes per unit: a pair of units is one 4-byte scalar.
        self.init(unsafeUninitializedCapacity: n * 3) { out in
            var o = 0, i = 0
            while i < n {
                let u = src[i]
                if u < 0x80 {
                    out[o] = UInt8(truncatingIfNeeded: u)
                    o += 1; i += 1
                } else if u < 0x800 {
                    out[o] = UInt8(truncatingIfNeeded: 0xC0 | (u >> 6))
                    out[o + 1] = UInt8(truncatingIfNeeded: 0x80 | (u & 0x3F))
                    o += 2; i += 1
                } else if UTF16.isLeadSurrogate(u), i + 1 < n, UTF16.isTrailSurrogate(src[i + 1]) {
                    let scalar = 0x10000 + ((UInt32(u) - 0xD800) << 10) + (UInt32(src[i + 1]) - 0xDC00)
                    out[o] = UInt8(truncatingIfNeeded: 0xF0 | (scalar >> 18))
                    out[o + 1] = UInt8(truncatingIfNeeded: 0x80 | ((scalar >> 12) & 0x3F))
                    out[o + 2] = UInt8(truncatingIfNeeded: 0x80 | ((scalar >> 6) & 0x3F))
                    out[o + 3] = UInt8(truncatingIfNeeded: 0x80 | (scalar & 0x3F))
                    o += 4; i += 2
                } else {
                    let scalar = UTF16.isLeadSurrogate(u) || UTF16.isTrailSurrogate(u) ? 0xFFFD : u
                    out[o] = UInt8(truncatingIfNeeded: 0xE0 | (scalar >> 12))
                    out[o + 1] = UInt8(truncatingIfNeeded: 0x80 | ((scalar >> 6) & 0x3F))
                    out[o + 2] = UInt8(truncatingIfNeeded: 0x80 | (scalar & 0x3F))
                    o += 3; i += 1
                }
            }
            return o
        }
    }
}
