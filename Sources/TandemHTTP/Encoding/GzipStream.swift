import CZlib

/// One write of a gzip stream (RFC 1952) that must reach the client write by write, as
/// Server-Sent Events must. The piece is deflated on its own, from an empty window, and
/// ends byte-aligned with a sync flush: the client's inflater hands out all of it as soon
/// as it arrives, and since no piece refers back into another, one piece can go to any
/// number of streams. A change batch is compressed once for all its subscribers, not once
/// each. A stream's pieces in a row are one valid deflate stream; `GzipStreamEncoder`
/// adds the header before them and the trailer after.
public struct GzipPiece: Sendable {
    /// The deflate blocks, none of them final.
    public let deflated: [UInt8]
    /// CRC-32 and length of the bytes the piece holds, for the stream's trailer.
    let crc: UInt32
    let count: Int

    /// Level 1: at thousands of events a second the stream is CPU-bound, not network-bound,
    /// and event text repeats so much that level 1 shrinks it nearly as well as level 6 for
    /// a fraction of the CPU (see docs/performance.md).
    public init?(compressing bytes: UnsafeRawBufferPointer, level: Int32 = 1) {
        var stream = z_stream()
        guard shim_deflateInit2_raw(&stream, level) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        guard let deflated = Gzip.deflateAll(&stream, bytes, flush: Z_SYNC_FLUSH) else { return nil }
        self.deflated = deflated
        crc = UInt32(truncatingIfNeeded: crc32(0, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), uInt(bytes.count)))
        count = bytes.count
    }

    public init?(compressing bytes: [UInt8], level: Int32 = 1) {
        guard let piece = bytes.withUnsafeBytes({ GzipPiece(compressing: $0, level: level) }) else { return nil }
        self = piece
    }
}

/// The header and trailer around a stream's `GzipPiece`s, and the running CRC-32 and length
/// the trailer needs (combined from the pieces' own, so no piece's bytes are read twice).
public struct GzipStreamEncoder: Sendable {
    private var crc: UInt32 = 0
    /// Modulo 2^32, as the trailer's ISIZE is.
    private var length: UInt32 = 0

    public init() {}

    /// No timestamp, no name, operating system "unknown": the same header for every stream.
    public static let header: [UInt8] = [0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 0xFF]

    /// Counts `piece` as the stream's next one.
    public mutating func add(_ piece: GzipPiece) {
        crc = UInt32(truncatingIfNeeded: crc32_combine(uLong(crc), uLong(piece.crc), off_t(piece.count)))
        length &+= UInt32(truncatingIfNeeded: piece.count)
    }

    /// The end of the stream: a final, empty fixed-Huffman block (0x03 0x00, what zlib's
    /// `deflate(Z_FINISH)` writes for no more input), then CRC-32 and length, little-endian.
    public var trailer: [UInt8] {
        var out: [UInt8] = [0x03, 0x00]
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: crc >> UInt32(shift))) }
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: length >> UInt32(shift))) }
        return out
    }
}
