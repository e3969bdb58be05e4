/// One chunk of a streamed body, framed once (`size CRLF bytes CRLF`): the same chunk can be
/// queued on any number of streams, each holding a reference to these bytes, not a copy:
/// otherwise an event would be copied into each stream's queue, then into each connection's
/// output, twice per subscriber (see docs/performance.md).
public struct HTTPStreamChunk: Sendable {
    /// The bytes as they go on the wire.
    let framed: [UInt8]
    /// The chunk's data, without its framing.
    public let count: Int
    /// The same data as a gzip stream's piece, framed, when it was made for gzipped streams
    /// too: compressed once for all of them (see `GzipPiece`).
    let gzip: Gzipped?

    struct Gzipped: Sendable {
        var framed: [UInt8]
        var piece: GzipPiece

        init?(_ data: UnsafeRawBufferPointer) {
            guard let piece = GzipPiece(compressing: data) else { return nil }
            self.piece = piece
            framed = HTTPStreamChunk.frame(piece.deflated)
        }
    }

    /// `gzip`: also compress it now, for the gzipped streams it will be queued on.
    public init(_ bytes: [UInt8], gzip: Bool = false) {
        count = bytes.count
        framed = Self.frame(bytes)
        self.gzip = gzip ? bytes.withUnsafeBytes { Gzipped($0) } : nil
    }

    /// The gzip form of this chunk's data: the one made with it, or made now.
    var gzipped: Gzipped? {
        if let gzip { return gzip }
        // The data sits between the size line and the final CRLF.
        let start = framed.count - count - 2
        return framed.withUnsafeBytes { Gzipped(UnsafeRawBufferPointer(rebasing: $0[start..<(start + count)])) }
    }

    static func frame(_ bytes: [UInt8]) -> [UInt8] {
        var framed: [UInt8] = []
        framed.reserveCapacity(bytes.count + 12)
        ResponseSerializer.appendHex(bytes.count, to: &framed)
        framed.append(contentsOf: ResponseSerializer.crlf)
        framed.append(contentsOf: bytes)
        framed.append(contentsOf: ResponseSerializer.crlf)
        return framed
    }
}
