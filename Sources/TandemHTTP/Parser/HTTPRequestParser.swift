/// An incremental HTTP/1.1 request parser (RFC 9112) that accepts bytes in any split.
///
/// Feed bytes with `append`, then call `next()` until it returns nil. Every framing
/// ambiguity that could smuggle a request is an error (see `HTTPParseError`); after an
/// error the parser stays failed, since the stream position can no longer be trusted.
///
/// Decisions (RFC 9112 leaves them open):
/// - Bare LF as a line terminator is rejected (§2.2 allows accepting it; we don't, against smuggling).
/// - Repeated Content-Length fields or list members with one equal value are accepted (§6.3 ¶5).
/// - HTTP/1.x with a minor version above 1 is served as HTTP/1.1 (RFC 9110 §6.2); other majors get 505.
/// - Empty lines (CRLF) before a request line are skipped (§2.2).
/// - `Expect: 100-continue` is ignored in HTTP/1.0; any other expectation gets 417.
/// - A transfer coding other than chunked gets 501; chunked not last, or TE in HTTP/1.0, gets 400.
/// - Targets (§3.2): origin-form, absolute-form with an `http`/`https` URI, and `*` for OPTIONS;
///   anything else is 400, and CONNECT's authority-form 501 (no tunnels here).
/// - Host must be one valid `uri-host [ ":" port ]` (§3.2); empty only with an absolute-form
///   target, whose authority stands in for it (§3.2.2): an `http` URI needs a host (RFC 9110 §4.2.1).
public struct HTTPRequestParser {
    public enum Event {
        case request(HTTPRequest)
        /// The head of a request asking `Expect: 100-continue` is complete and its body is due.
        case continueExpected
    }

    enum State {
        case head
        case fixedBody(Int)
        case chunkSize
        case chunkData(Int)
        case trailers
        case failed(HTTPParseError)
    }

    public let limits: HTTPLimits
    public var remoteAddress: String

    // Not private: the extensions in HTTPRequestParser+*.swift parse in place.
    var buffer: [UInt8] = []
    var start = 0
    var scan = 0
    var lineStart = 0
    var state: State = .head
    var current: HTTPRequest?
    var bodyLength = 0
    var trailerBytes = 0
    var continuePending = false

    public init(limits: HTTPLimits = HTTPLimits(), remoteAddress: String = "") {
        self.limits = limits
        self.remoteAddress = remoteAddress
        buffer.reserveCapacity(1024)
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// No request is begun: nothing buffered and no body pending (the connection is idle).
    public var isIdle: Bool {
        if case .head = state { return start == buffer.count }
        return false
    }

    /// Reading a body (fixed or chunked) rather than a head.
    public var isReadingBody: Bool {
        switch state {
        case .fixedBody, .chunkSize, .chunkData, .trailers: true
        default: false
        }
    }

    public var bufferedByteCount: Int { buffer.count - start }

    private mutating func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            scan = 0; lineStart = 0; start = 0
        } else if start > 4096 && start > buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            scan -= start; lineStart -= start; start = 0
        }
    }

    /// The next complete request or interim event, nil when more bytes are needed.
    public mutating func next() throws(HTTPParseError) -> Event? {
        do {
            return try step()
        } catch {
            state = .failed(error)
            throw error
        }
    }

    private mutating func step() throws(HTTPParseError) -> Event? {
        while true {
            switch state {
            case .failed(let error):
                throw error
            case .head:
                guard let request = try parseHead() else { return nil }
                if case .head = state { return .request(request) }
                current = request
                if continuePending {
                    continuePending = false
                    return .continueExpected
                }
            case .fixedBody(let length):
                guard buffer.count - start >= length else { return nil }
                current!.body = Array(buffer[start..<start + length])
                start += length
                return finish()
            case .chunkSize:
                guard try parseChunkSize() else { return nil }
            case .chunkData(let size):
                guard buffer.count - start >= size + 2 else { return nil }
                guard buffer[start + size] == HTTPSyntax.cr, buffer[start + size + 1] == HTTPSyntax.lf else {
                    throw .bad("chunk_missing_crlf", "chunk data is not followed by CRLF")
                }
                current!.body.append(contentsOf: buffer[start..<start + size])
                start += size + 2
                scan = start
                state = .chunkSize
            case .trailers:
                guard try parseTrailerLine() else { return nil }
                if case .head = state { return finish() }
            }
        }
    }

    private mutating func finish() -> Event {
        state = .head
        scan = start; lineStart = start
        bodyLength = 0
        return .request(current.take()!)
    }
}
