/// Response compression, decided per request.
public enum ContentEncoding {
    /// The response gzipped when that is worth it and the client accepts it; otherwise
    /// the response as it was (plus `Vary`).
    ///
    /// Compresses only when every condition holds: the body is `.bytes`, the status allows
    /// a body, there is no `Content-Encoding` yet, `Cache-Control` does not say
    /// `no-transform`, the status is not 206, the `Content-Type` is compressible (text,
    /// JSON, JavaScript, XML, SVG, …), the body is at least `minimumSize` bytes, the
    /// request's `Accept-Encoding` allows gzip, and gzip makes it smaller.
    ///
    /// Every response of a compressible type gets `Vary: Accept-Encoding`, compressed or
    /// not, so caches keep the two forms apart.
    ///
    /// ETags: a strong `"x"` becomes weak `W/"x"` when the body is compressed, because the
    /// bytes differ from the identity form's (RFC 9110 §8.8.3). `If-None-Match` compares
    /// weakly (§13.1.2), so a client revalidating with `W/"x"` still gets its 304 from a
    /// handler that knows only `"x"` — see `EntityTag.matches(ifNoneMatch:etag:)`.
    /// Any `Content-Length` the handler set is removed: the connection computes it.
    public static func negotiate(request: HTTPRequest, response: HTTPResponse, minimumSize: Int = 1024) -> HTTPResponse {
        negotiate(requestHeaders: request.headers, response: response, minimumSize: minimumSize)
    }

    /// `negotiate(request:response:minimumSize:)` given only the request's header fields.
    public static func negotiate(requestHeaders: HTTPHeaders, response: HTTPResponse, minimumSize: Int = 1024) -> HTTPResponse {
        // Most API answers: small JSON with the shared header list. All they gain is Vary,
        // which a second shared list already has.
        if response.headers.sharesStorage(with: HTTPResponse.jsonHeaders), case .bytes(let body) = response.body,
           body.count < minimumSize, response.status.allowsBody {
            var out = response
            out.headers = HTTPResponse.jsonHeadersVaryingByEncoding
            return out
        }
        if case .stream = response.body { return negotiateStream(requestHeaders: requestHeaders, response: response) }
        // A response that varies by Accept-Encoding already was negotiated by its producer
        // (static files keep gzipped copies): nothing to add, and one header scan spares several.
        guard case .bytes(let body) = response.body,
              response.status.allowsBody,
              !response.headers.hasToken("Accept-Encoding", in: "Vary"),
              let contentType = response.headers["Content-Type"],
              CompressibleMediaType.isCompressible(contentType: contentType)
        else { return response }

        var out = response
        addVaryAcceptEncoding(&out.headers)
        guard body.count >= minimumSize,
              response.status.code != 206,
              !response.headers.contains("Content-Encoding"),
              !response.headers.hasToken("no-transform", in: "Cache-Control"),
              AcceptEncoding.acceptsGzip(requestHeaders),
              let compressed = Gzip.compress(body),
              compressed.count < body.count
        else { return out }

        out.body = .bytes(compressed)
        out.headers.set("Content-Encoding", "gzip")
        out.headers.remove("Content-Length")
        if let etag = out.headers["ETag"], etag.hasPrefix("\"") {
            out.headers.set("ETag", "W/" + etag)
        }
        return out
    }

    /// An event stream is gzipped write by write (see `GzipPiece`), so each event still
    /// reaches the client as it is written: change event text repeats so much that it
    /// compresses well, and a server fanning changes out to every subscriber writes that much less.
    /// Other streams are left alone: nothing says their writes are meant to be read one by one.
    static func negotiateStream(requestHeaders: HTTPHeaders, response: HTTPResponse) -> HTTPResponse {
        guard response.status.allowsBody,
              let contentType = response.headers["Content-Type"],
              CompressibleMediaType.isEventStream(contentType: contentType)
        else { return response }
        var out = response
        addVaryAcceptEncoding(&out.headers)
        guard !response.headers.contains("Content-Encoding"),
              !response.headers.hasToken("no-transform", in: "Cache-Control"),
              AcceptEncoding.acceptsGzip(requestHeaders)
        else { return out }
        out.headers.set("Content-Encoding", "gzip")
        return out
    }

    /// Whether `request` accepts a gzipped response (q-values honoured; see `negotiate`).
    public static func acceptsGzip(_ request: HTTPRequest) -> Bool {
        AcceptEncoding.acceptsGzip(request.headers)
    }

    /// Whether a body of this `Content-Type` is worth compressing.
    public static func isCompressible(contentType: String) -> Bool {
        CompressibleMediaType.isCompressible(contentType: contentType)
    }

    static func addVaryAcceptEncoding(_ headers: inout HTTPHeaders) {
        if headers.hasToken("Accept-Encoding", in: "Vary") || headers.hasToken("*", in: "Vary") { return }
        // Vary is a list; a second field line means the same as one joined with a comma.
        headers.add("Vary", "Accept-Encoding")
    }
}
