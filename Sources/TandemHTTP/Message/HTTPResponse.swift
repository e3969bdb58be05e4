/// A response: status, headers and a body that is either whole bytes or a stream.
///
/// The connection adds `Date`, `Content-Length` (or chunked framing for streams),
/// `Connection` and, where it applies, gzip; handlers set only what is theirs.
public struct HTTPResponse: Sendable {
    public enum Body: Sendable {
        case bytes([UInt8])
        /// A chunked, open-ended body (Server-Sent Events): the closure gets the writer once
        /// the head is on its way, on the connection's event-loop thread, and may keep it.
        /// With `Content-Encoding: gzip` in the head (`ContentEncoding.negotiate` sets it for
        /// event streams) the connection gzips each write: write plain bytes.
        case stream(@Sendable (HTTPStreamWriter) -> Void)
    }

    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: Body

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: HTTPStatus = .ok, contentType: String, body: [UInt8], headers: HTTPHeaders = [:]) {
        var h = headers
        h.set("Content-Type", contentType)
        self.init(status: status, headers: h, body: .bytes(body))
    }

    public static func text(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }

    public static func json(_ bytes: [UInt8], status: HTTPStatus = .ok, headers: HTTPHeaders = [:]) -> HTTPResponse {
        // Most answers add no header of their own: they share one field list (no allocation).
        if headers.isEmpty { return HTTPResponse(status: status, headers: jsonHeaders, body: .bytes(bytes)) }
        return HTTPResponse(status: status, contentType: "application/json; charset=utf-8", body: bytes, headers: headers)
    }

    /// The field list `json` shares, and the same with `Vary: Accept-Encoding`, which
    /// `ContentEncoding.negotiate` hands on for a small one: code after it recognises
    /// these by `HTTPHeaders.sharesStorage(with:)` and swaps in another shared list, instead
    /// of copying and scanning the fields of most API answers.
    public static let jsonHeaders: HTTPHeaders = ["Content-Type": "application/json; charset=utf-8"]
    public static let jsonHeadersVaryingByEncoding: HTTPHeaders = ["Content-Type": "application/json; charset=utf-8", "Vary": "Accept-Encoding"]

    /// The contract's error shape: `{"error": {"code": "…", "message": "…"}}`.
    public static func error(_ status: HTTPStatus, code: String, message: String, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var out: [UInt8] = []
        out.reserveCapacity(48 + code.utf8.count + message.utf8.count)
        out.append(contentsOf: #"{"error":{"code":"#.utf8)
        JSONEscaping.appendString(code, to: &out)
        out.append(contentsOf: #","message":"#.utf8)
        JSONEscaping.appendString(message, to: &out)
        out.append(contentsOf: "}}".utf8)
        return json(out, status: status, headers: headers)
    }

    /// The body bytes when it is not a stream.
    public var bodyBytes: [UInt8]? {
        if case .bytes(let b) = body { return b }
        return nil
    }
}

public enum JSONEscaping {
    /// Appends `s` as a JSON string literal, quotes included (RFC 8259 §7). Runs of bytes
    /// that need no escape are copied whole: iterating `String.UTF8View` byte by byte goes
    /// through unspecialized collection witnesses, and every event is framed this way.
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { appendString(utf8: $0, to: &out) }
    }

    public static func appendString(utf8 bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var start = 0
        for i in 0..<bytes.count {
            let b = bytes[i]
            guard b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") else { continue }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
            start = i + 1
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(b)
            case 0x0A: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
            default:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(b >> 4)], hex[Int(b & 15)]])
            }
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        out.append(UInt8(ascii: "\""))
    }
}
