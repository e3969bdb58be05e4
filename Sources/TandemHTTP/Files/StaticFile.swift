#if canImport(Glibc)
import Glibc
#endif

/// One version of one file, read and with its responses' headers built, so that serving
/// it again costs a `stat` and a few reference-count bumps. Immutable, hence Sendable.
final class StaticFile: Sendable {
    /// The path `stat` checks on every request: the root joined with the request's names,
    /// unresolved, so a symlink moved since is noticed (the file identity changes).
    let statPath: String
    let identity: Identity
    let body: [UInt8]
    let etag: String
    let lastModified: String
    let headers: HTTPHeaders
    let notModifiedHeaders: HTTPHeaders
    /// Set when the type is compressible, the file big enough and gzip smaller.
    let gzipped: Gzipped?

    struct Identity: Equatable, Sendable {
        var device: UInt64
        var inode: UInt64
        var size: Int
        var modifiedSeconds: Int
        var modifiedNanoseconds: Int

        init(_ s: stat) {
            device = UInt64(s.st_dev)
            inode = UInt64(s.st_ino)
            size = Int(s.st_size)
            modifiedSeconds = Int(s.st_mtim.tv_sec)
            modifiedNanoseconds = Int(s.st_mtim.tv_nsec)
        }

        /// Strong: a new size or modification time makes a new tag.
        var etag: String {
            let nanoseconds = modifiedSeconds &* 1_000_000_000 &+ modifiedNanoseconds
            return "\"\(String(size, radix: 16))-\(String(nanoseconds, radix: 16))\""
        }
    }

    struct Gzipped: Sendable {
        let body: [UInt8]
        let headers: HTTPHeaders
        let notModifiedHeaders: HTTPHeaders
    }

    init(statPath: String, identity: Identity, body: [UInt8], contentType: String, compressionMinimumSize: Int) {
        self.statPath = statPath
        self.identity = identity
        self.body = body
        let etag = identity.etag
        self.etag = etag
        let lastModified = HTTPDate.imfFixdate(secondsSince1970: identity.modifiedSeconds)
        self.lastModified = lastModified
        let compressible = ContentEncoding.isCompressible(contentType: contentType)

        // What a 304 must repeat from the 200 (RFC 9110 §15.4.5).
        var validators = HTTPHeaders()
        validators.add("ETag", etag)
        validators.add("Last-Modified", lastModified)
        validators.add("Cache-Control", "no-cache")
        if compressible { validators.add("Vary", "Accept-Encoding") }
        notModifiedHeaders = validators

        var headers = validators
        headers.add("Content-Type", contentType)
        headers.add("X-Content-Type-Options", "nosniff")
        self.headers = headers

        if compressible, body.count >= compressionMinimumSize,
           let compressed = Gzip.compress(body), compressed.count < body.count {
            // Weak, as ContentEncoding.negotiate does it: same rule, same tags.
            var zipped = headers
            zipped.set("ETag", "W/" + etag)
            zipped.add("Content-Encoding", "gzip")
            var zippedValidators = validators
            zippedValidators.set("ETag", "W/" + etag)
            gzipped = Gzipped(body: compressed, headers: zipped, notModifiedHeaders: zippedValidators)
        } else {
            gzipped = nil
        }
    }

    func response(to request: HTTPRequest) -> HTTPResponse {
        let variant = gzipped.flatMap { ContentEncoding.acceptsGzip(request) ? $0 : nil }
        if isNotModified(request) {
            return HTTPResponse(status: .notModified, headers: variant?.notModifiedHeaders ?? notModifiedHeaders)
        }
        if let variant {
            return HTTPResponse(status: .ok, headers: variant.headers, body: .bytes(variant.body))
        }
        return HTTPResponse(status: .ok, headers: headers, body: .bytes(body))
    }

    /// `If-None-Match` decides when present; only without it does `If-Modified-Since`
    /// (RFC 9110 §13.2.2). That one is compared by text with our `Last-Modified`, which is
    /// what browsers send back; any other date just gets the full response.
    private func isNotModified(_ request: HTTPRequest) -> Bool {
        if let tags = request.headers["If-None-Match"] {
            return EntityTag.matches(ifNoneMatch: tags, etag: etag)
        }
        if let since = request.headers["If-Modified-Since"] {
            return since == lastModified
        }
        return false
    }
}
