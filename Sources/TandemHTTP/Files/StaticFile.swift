#if canImport(Glibc)
import Glibc
#endif

/// One version of one file, read and with its responses' headers built, so that serving
/// it again costs a `stat` and a few reference-count bumps. Immutable, hence Sendable.
final class StaticFile: Sendable {
    /// The path `fstatat` checks on every request, relative to the root's descriptor: the
    /// request's names unresolved, so a symlink moved since is noticed (the file identity
    /// changes). NUL-terminated bytes, handed to the kernel without conversion.
    let statPath: [CChar]
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

    init(statPath: [CChar], identity: Identity, body: [UInt8], contentType: String, compressionMinimumSize: Int) {
        self.statPath = statPath
        self.identity = identity
        self.body = body
        let etag = identity.etag
        self.etag = etag
        let lastModified = IMFFixdate.string(secondsSince1970: identity.modifiedSeconds)
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
        // One pass over the request's headers for the three that matter here.
        var ifNoneMatch: String?
        var ifModifiedSince: String?
        var acceptsGzip = false
        for field in request.headers.fields {
            if Self.name(field.name, is: "if-none-match") {
                if ifNoneMatch == nil { ifNoneMatch = field.value }
            } else if Self.name(field.name, is: "if-modified-since") {
                if ifModifiedSince == nil { ifModifiedSince = field.value }
            } else if gzipped != nil, Self.name(field.name, is: "accept-encoding") {
                acceptsGzip = true
            }
        }
        if acceptsGzip { acceptsGzip = AcceptEncoding.acceptsGzip(request.headers) }
        let variant = acceptsGzip ? gzipped : nil
        if isNotModified(ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince) {
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
    /// ASCII case-insensitive equality with an already-lowercased name. Not the generic
    /// `HTTPHeaders.namesEqual`: unspecialized, that one would outweigh the rest of a cache hit.
    @inline(__always)
    static func name(_ name: String, is lowercased: StaticString) -> Bool {
        let count = lowercased.utf8CodeUnitCount
        var name = name
        guard name.utf8.count == count else { return false }
        return name.withUTF8 { bytes in
            let expected = lowercased.utf8Start
            for i in 0..<count {
                let b = bytes[i]
                if (b >= 65 && b <= 90 ? b | 0x20 : b) != expected[i] { return false }
            }
            return true
        }
    }

    private func isNotModified(ifNoneMatch: String?, ifModifiedSince: String?) -> Bool {
        if let ifNoneMatch { return EntityTag.matches(ifNoneMatch: ifNoneMatch, etag: etag) }
        if let ifModifiedSince { return ifModifiedSince == lastModified }
        return false
    }
}
