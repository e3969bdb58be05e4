import TandemHTTP
import TandemStore

/// An answer as `PostgresIdempotencyKeys` keeps it and back: the status code, every header
/// field the handler set (the connection adds framing and `Date` at each sending, the
/// content coding middleware `Content-Encoding` and `Vary`), and the body.
extension StoredAnswer {
    /// Nil for a streamed body, which cannot be kept (no mutating route answers with one).
    init?(_ response: HTTPResponse, answered: Double) {
        guard let body = response.bodyBytes else { return nil }
        self.init(status: response.status.code, headers: Self.encode(response.headers), body: body, answered: answered)
    }

    var response: HTTPResponse {
        HTTPResponse(status: HTTPStatus(status), headers: Self.decode(headers), body: .bytes(body))
    }

    /// Each field as its name and value, each a 4-byte big-endian length then UTF-8 bytes:
    /// nothing a value holds can be mistaken for a separator.
    static func encode(_ headers: HTTPHeaders) -> [UInt8] {
        var out: [UInt8] = []
        func append(_ s: String) {
            let bytes = Array(s.utf8)
            withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { out += $0 }
            out += bytes
        }
        for field in headers {
            append(field.name)
            append(field.value)
        }
        return out
    }

    /// What `encode` wrote; a truncated tail (never written) is dropped.
    static func decode(_ bytes: [UInt8]) -> HTTPHeaders {
        var at = 0
        func next() -> String? {
            guard bytes.count - at >= 4 else { return nil }
            let length = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            at += 4
            guard bytes.count - at >= length else { return nil }
            defer { at += length }
            return String(decoding: bytes[at..<at + length], as: UTF8.self)
        }
        var headers = HTTPHeaders()
        while let name = next(), let value = next() { headers.add(name, value) }
        return headers
    }
}
