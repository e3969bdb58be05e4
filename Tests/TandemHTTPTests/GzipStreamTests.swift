import CZlib
import Synchronization
import Testing
@testable import TandemHTTP
import TandemTestSupport

/// zlib's own inflater, fed as a client would be: what it hands out after each piece must be
/// everything written so far.
final class Inflater {
    private var stream = z_stream()
    private(set) var ended = false

    /// `gzip`: a whole gzip stream (header, pieces, trailer), CRC-checked; else one raw piece.
    init(gzip: Bool) {
        let status = gzip ? shim_inflateInit2_gzip(&stream) : shim_inflateInit2_raw(&stream)
        precondition(status == Z_OK)
    }

    deinit { inflateEnd(&stream) }

    /// What `input` inflates to at once; nil on an error.
    func feed(_ input: [UInt8]) -> [UInt8]? {
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        return input.withUnsafeBufferPointer { inp -> [UInt8]? in
            stream.next_in = UnsafeMutablePointer(mutating: inp.baseAddress)
            stream.avail_in = uInt(inp.count)
            while true {
                let (status, produced) = buffer.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    let status = inflate(&stream, Z_SYNC_FLUSH)
                    return (status, out.count - Int(stream.avail_out))
                }
                output += buffer[..<produced]
                switch status {
                case Z_STREAM_END: ended = true; return output
                case Z_OK, Z_BUF_ERROR:
                    if stream.avail_in == 0 && produced < buffer.count { return output }
                    if status == Z_BUF_ERROR && produced == 0 { return nil }
                default: return nil
                }
            }
        }
    }
}

@Suite struct GzipStreamTests {
    static func random(_ count: Int, seed: UInt64) -> [UInt8] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }

    static let event = Array("id: 7\nevent: change\ndata: {\"revision\":7,\"ops\":[3,\"a\",9]}\n\n".utf8)

    /// Writes of a stream: none, small, repetitive, incompressible, and larger than the
    /// 64 KB window and than the first output buffer.
    static let writeLists: [[[UInt8]]] = [
        [],
        [event],
        [Array("retry: 1000\n\n".utf8), event, Array(": keep-alive\n\n".utf8)],
        [Array(repeating: UInt8(ascii: "x"), count: 1)],
        [Array((0..<2000).flatMap { _ in event }), event],
        [random(100_000, seed: 1), event, random(3, seed: 2)],
        [random(70_000, seed: 3) + Array((0..<3000).flatMap { _ in event })],
    ]

    static func stream(_ writes: [[UInt8]]) -> (bytes: [UInt8], pieces: [[UInt8]]) {
        var encoder = GzipStreamEncoder()
        var bytes = GzipStreamEncoder.header
        var pieces: [[UInt8]] = []
        for w in writes {
            let piece = GzipPiece(compressing: w)!
            encoder.add(piece)
            bytes += piece.deflated
            pieces.append(piece.deflated)
        }
        return (bytes + encoder.trailer, pieces)
    }

    @Test(arguments: writeLists.indices)
    func piecesMakeOneGzipStream(_ index: Int) throws {
        let writes = Self.writeLists[index]
        let (bytes, _) = Self.stream(writes)
        // Gzip.decompress checks the trailer's CRC-32 and length.
        #expect(Gzip.decompress(bytes, limit: 1 << 24) == writes.flatMap { $0 })
    }

    @Test(arguments: writeLists.indices)
    func eachPieceIsReadableAsItArrivesAndOnItsOwn(_ index: Int) throws {
        let writes = Self.writeLists[index]
        let (_, pieces) = Self.stream(writes)
        let client = Inflater(gzip: true)
        #expect(client.feed(GzipStreamEncoder.header) == [])
        for (write, piece) in zip(writes, pieces) {
            // A client has all of a write as soon as its piece arrived...
            #expect(client.feed(piece) == write)
            // ...and the piece needs no other: the same bytes serve every stream.
            #expect(Inflater(gzip: false).feed(piece) == write)
        }
        var encoder = GzipStreamEncoder()
        for w in writes { encoder.add(GzipPiece(compressing: w)!) }
        #expect(client.feed(encoder.trailer) == [])
        #expect(client.ended)
    }

    @Test func piecesInAnyOrderMakeAValidStream() {
        let writes = [Self.event, Array("id: 8\n\n".utf8), Self.random(5000, seed: 9), Self.event]
        let reordered = [writes[2], writes[0], writes[3], writes[1]]
        #expect(Gzip.decompress(Self.stream(reordered).bytes, limit: 1 << 20) == reordered.flatMap { $0 })
    }

    @Test func samePieceForSameBytes() {
        // What lets one compressed batch go to every subscriber.
        let batch = Array((0..<10).flatMap { _ in Self.event })
        #expect(GzipPiece(compressing: batch)!.deflated == GzipPiece(compressing: batch)!.deflated)
        #expect(GzipPiece(compressing: batch)!.deflated.count * 5 < batch.count)
    }

    @Test func trailerForNothingWritten() {
        #expect(GzipStreamEncoder().trailer == [0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(Gzip.decompress(GzipStreamEncoder.header + GzipStreamEncoder().trailer, limit: 10) == [])
    }

    // MARK: negotiation

    static func request(_ acceptEncoding: String?) -> HTTPHeaders {
        var headers = HTTPHeaders()
        if let acceptEncoding { headers.add("Accept-Encoding", acceptEncoding) }
        return headers
    }

    /// Content-Type, Accept-Encoding, Cache-Control → gzipped?
    static let streamCases: [(String, String?, String?, Bool)] = [
        ("text/event-stream; charset=utf-8", "gzip", nil, true),
        ("text/event-stream", "gzip, deflate, br, zstd", nil, true),
        ("Text/Event-Stream", "*", nil, true),
        ("text/event-stream", nil, nil, false),
        ("text/event-stream", "gzip;q=0", nil, false),
        ("text/event-stream", "identity", nil, false),
        ("text/event-stream", "gzip", "no-cache, no-transform", false),
        ("text/plain", "gzip", nil, false),
        ("application/octet-stream", "gzip", nil, false),
    ]

    @Test(arguments: streamCases)
    func eventStreamsAreGzippedWhenAccepted(contentType: String, accept: String?, cacheControl: String?, gzipped: Bool) {
        var headers: HTTPHeaders = ["Content-Type": contentType]
        if let cacheControl { headers.add("Cache-Control", cacheControl) }
        let out = ContentEncoding.negotiate(requestHeaders: Self.request(accept),
                                            response: HTTPResponse(status: .ok, headers: headers, body: .stream { _ in }))
        #expect((out.headers["Content-Encoding"] == "gzip") == gzipped)
        #expect(out.headers.hasToken("Accept-Encoding", in: "Vary") == contentType.lowercased().hasPrefix("text/event-stream"))
    }

    // MARK: over a socket

    static let writes = [Array("retry: 1000\n\n".utf8), event, Array((0..<500).flatMap { _ in event })]

    static func eventStream(_ writes: [[UInt8]], finish: Bool, gate: (@Sendable (Int) -> Void)? = nil) -> HTTPHandler {
        { _, responder in
            responder.send(HTTPResponse(headers: ["Content-Type": "text/event-stream"], body: .stream { writer in
                Background.run {
                    for (i, w) in writes.enumerated() {
                        gate?(i)
                        writer.write(w)
                    }
                    if finish { writer.finish() }
                }
            }))
        }
    }

    /// `handler` with its responses negotiated on their way out, as the server's middleware does.
    static func gzipping(_ handler: @escaping HTTPHandler) -> HTTPHandler {
        { request, responder in
            let requestHeaders = request.headers
            handler(request, HTTPResponder { response in
                responder.send(ContentEncoding.negotiate(requestHeaders: requestHeaders, response: response))
            })
        }
    }

    @Test func eachWriteArrivesDecodable() throws {
        // The next write waits until the client has decoded the one before: nothing is held
        // back in a compressor waiting for more.
        let decoded = Mutex(0)
        let gate: @Sendable (Int) -> Void = { i in
            for _ in 0..<500 where decoded.withLock({ $0 }) < i { usleep(2000) }
        }
        try withServer(handler: Self.gzipping(Self.eventStream(Self.writes, finish: true, gate: gate))) { server in
            let c = try TestClient(port: server.boundPort)
            try c.send("GET /events HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\n\r\n")
            let head = try c.readHeadOnly()
            #expect(head.headers["Content-Encoding"] == "gzip")
            #expect(head.headers.hasToken("Accept-Encoding", in: "Vary"))
            #expect(head.headers["Transfer-Encoding"] == "chunked")
            let header = try #require(try c.readChunk())
            #expect(header == GzipStreamEncoder.header)
            let client = Inflater(gzip: true)
            #expect(client.feed(header) == [])
            for (i, write) in Self.writes.enumerated() {
                let piece = try #require(try c.readChunk())
                #expect(client.feed(piece) == write)
                decoded.withLock { $0 = i + 1 }
            }
            // Finished: the trailer, whose CRC-32 and length zlib checks, then the last chunk.
            #expect(client.feed(try #require(try c.readChunk())) == [])
            #expect(client.ended)
            #expect(try c.readChunk() == nil)
            // The connection carries on, and a client that asks for no gzip gets none.
            try c.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
            let plain = try c.readResponse()
            #expect(plain.headers["Content-Encoding"] == nil)
            #expect(plain.body == Self.writes.flatMap { $0 })
        }
    }

    @Test func oneChunkServesManyGzippedStreams() throws {
        // Made for gzip once, queued on two gzipped streams and one plain one.
        let chunk = HTTPStreamChunk(Array((0..<50).flatMap { _ in Self.event }), gzip: true)
        let handler: HTTPHandler = { _, responder in
            responder.send(HTTPResponse(headers: ["Content-Type": "text/event-stream"], body: .stream { writer in
                writer.write(chunk)
                writer.finish()
            }))
        }
        try withServer(handler: Self.gzipping(handler)) { server in
            var pieces: [[UInt8]] = []
            for _ in 0..<2 {
                let c = try TestClient(port: server.boundPort)
                try c.send("GET /events HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\n\r\n")
                let r = try c.readResponse()
                #expect(Gzip.decompress(r.body, limit: 1 << 20) == (0..<50).flatMap { _ in Self.event })
                pieces.append(r.body)
            }
            #expect(pieces[0] == pieces[1])
            let c = try TestClient(port: server.boundPort)
            try c.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try c.readResponse().body == (0..<50).flatMap { _ in Self.event })
        }
    }
}
