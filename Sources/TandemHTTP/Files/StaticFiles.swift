#if canImport(Glibc)
import Glibc
#endif

/// Serves the files under one directory for GET and HEAD.
///
/// Path rules (decided here, see `StaticFilePath`):
/// - The path is split on `/` before percent-decoding; names that decode to `.`, `..`, or
///   hold `/`, `\`, NUL or control bytes, and malformed `%` escapes, get **400**
///   (`invalid_path`, JSON error). Never a file outside the root.
/// - Names starting with `.` (`.git`, `.env`), missing files, things that are not regular
///   files, and symlinks that resolve outside the root: `nil`, so the router answers 404.
/// - A directory answers with its `index.html`; asked for without the trailing slash it
///   redirects (**301**) to the slash form, so the page's relative links resolve.
///
/// Responses carry a strong `ETag` (size and modification time in hex), `Last-Modified`,
/// `Cache-Control: no-cache` (browsers revalidate, and get 304 from `If-None-Match` or an
/// echoed `If-Modified-Since`), and for compressible types `Vary: Accept-Encoding`.
/// Cached files that compress are kept gzipped too and sent that way to clients that
/// accept it (ETag `W/"…"`, as `ContentEncoding.negotiate` does). HEAD gets the GET
/// response, body included: the connection drops the body and keeps its length.
public struct StaticFiles: Sendable {
    /// The root, with symlinks resolved.
    public let root: String
    private let directory: RootDirectory
    private let cache: StaticFileCache
    private let compressionMinimumSize: Int
    /// Files bigger than this are refused (nil) rather than read into memory whole.
    private let fileSizeLimit = 64 * 1024 * 1024

    /// - Parameters:
    ///   - cachedFileSizeLimit: files up to this size are kept in memory.
    ///   - cacheByteLimit: the memory all cached files may take together.
    public init(
        root: String, cachedFileSizeLimit: Int = 256 * 1024, cacheByteLimit: Int = 32 * 1024 * 1024,
        compressionMinimumSize: Int = 1024
    ) {
        var resolved = root
        if let real = realpath(root, nil) {
            resolved = String(cString: real)
            free(real)
        }
        while resolved.count > 1 && resolved.hasSuffix("/") { resolved.removeLast() }
        self.root = resolved
        self.directory = RootDirectory(path: resolved)
        self.cache = StaticFileCache(fileSizeLimit: cachedFileSizeLimit, byteLimit: cacheByteLimit, entryLimit: 4096)
        self.compressionMinimumSize = compressionMinimumSize
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse? {
        guard request.method == .get || request.method == .head else { return nil }
        let path = request.path
        if let file = cache.file(for: path) {
            var status = stat()
            // Relative to the root's descriptor: the kernel walks only the request's names.
            let found = file.statPath.withUnsafeBufferPointer { fstatat(directory.descriptor, $0.baseAddress!, &status, 0) }
            if found == 0, StaticFile.Identity(status) == file.identity {
                return file.response(to: request)
            }
            cache.remove(path)
        }
        return respondFromDisk(to: request, path: path)
    }

    private func respondFromDisk(to request: HTTPRequest, path: Substring) -> HTTPResponse? {
        let names: [String]
        let trailingSlash: Bool
        switch StaticFilePath.parse(path) {
        case .names(let n, let slash): (names, trailingSlash) = (n, slash)
        case .hidden, .notApplicable: return nil
        case .invalid(let why): return .error(.badRequest, code: "invalid_path", message: why)
        }

        var candidate = root == "/" ? "" : root
        for name in names { candidate += "/" + name }
        if names.isEmpty { candidate = root }
        guard let resolved = resolveInsideRoot(candidate) else { return nil }
        var status = stat()
        guard stat(resolved, &status) == 0 else { return nil }

        var relative = names.joined(separator: "/")
        var statPath = candidate
        var fileName = names.last.map { Substring($0) } ?? ""
        if isDirectory(status) {
            guard trailingSlash || names.isEmpty else {
                // From the names, not the raw path: `//js` must not become `//js/`, which a
                // browser reads as another host.
                var location = "/" + path.split(separator: "/").joined(separator: "/") + "/"
                if let query = request.query { location += "?" + query }
                return HTTPResponse(status: HTTPStatus(301), headers: ["Location": location, "Cache-Control": "no-cache"])
            }
            statPath = candidate + "/index.html"
            relative = relative.isEmpty ? "index.html" : relative + "/index.html"
            fileName = "index.html"
        } else if trailingSlash {
            return nil
        }
        // Resolve again: index.html may itself be a symlink, and the file may have changed.
        guard let real = resolveInsideRoot(statPath) else { return nil }
        guard let (identity, body) = readRegularFile(real) else { return nil }
        let file = StaticFile(
            statPath: relative.utf8CString.map { $0 }, identity: identity, body: body,
            contentType: MediaTypes.contentType(forFileName: fileName),
            compressionMinimumSize: compressionMinimumSize)
        cache.store(file, for: path)
        return file.response(to: request)
    }

    /// The path with every symlink resolved, if it exists and lies inside the root.
    private func resolveInsideRoot(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        let resolved = String(cString: real)
        free(real)
        if resolved == root { return resolved }
        let prefix = root == "/" ? "/" : root + "/"
        return resolved.hasPrefix(prefix) ? resolved : nil
    }

    /// Reads a regular file whole; its identity comes from the open descriptor, so it
    /// describes exactly the bytes read.
    private func readRegularFile(_ path: String) -> (StaticFile.Identity, [UInt8])? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { _ = close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        let size = Int(status.st_size)
        guard size <= fileSizeLimit else { return nil }
        var body = [UInt8](repeating: 0, count: size)
        var filled = 0
        let ok = body.withUnsafeMutableBytes { buffer -> Bool in
            while filled < size {
                let n = read(fd, buffer.baseAddress! + filled, size - filled)
                if n > 0 { filled += n; continue }
                if n < 0 && errno == EINTR { continue }
                return n == 0  // shrank while reading: serve what is there
            }
            return true
        }
        guard ok else { return nil }
        if filled < size { body.removeSubrange(filled...) }
        return (StaticFile.Identity(status), body)
    }

    private func isDirectory(_ status: stat) -> Bool {
        (status.st_mode & S_IFMT) == S_IFDIR
    }
}

/// The root directory held open, so cached files are checked with `fstatat` relative to it.
private final class RootDirectory: Sendable {
    let descriptor: Int32
    init(path: String) { descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    deinit { if descriptor >= 0 { _ = close(descriptor) } }
}
