/// Which media types are worth gzipping as a whole body: text and text-like formats. Formats
/// that are already compressed (images other than SVG, fonts in WOFF2, archives, audio,
/// video) are not, nor is `text/event-stream`, which must reach the client event by event:
/// it is gzipped write by write instead (`ContentEncoding.negotiateStream`).
enum CompressibleMediaType {
    private static let knownApplicationSubtypes = [
        "json", "javascript", "x-javascript", "ecmascript", "xml", "wasm",
        "x-ndjson", "graphql", "vnd.ms-fontobject", "x-font-ttf", "x-yaml", "yaml",
    ]

    static func isCompressible(contentType: String) -> Bool {
        // Every response asks, most with one of a handful of exact values: those are
        // answered without splitting the header (see docs/performance.md).
        switch contentType {
        case "application/json; charset=utf-8", "application/json", "text/plain; charset=utf-8",
             "text/html; charset=utf-8", "text/css; charset=utf-8", "text/javascript; charset=utf-8":
            return true
        case "text/event-stream", "application/octet-stream", "image/png", "image/jpeg":
            return false
        default:
            break
        }
        let base = mediaType(contentType)
        let slash = base.utf8.firstIndex(of: UInt8(ascii: "/"))
        guard let slash else { return false }
        let type = base[..<slash]
        let subtype = base[base.index(after: slash)...]
        if HTTPHeaders.namesEqual(type, "text") {
            return !HTTPHeaders.namesEqual(subtype, "event-stream")
        }
        if hasSuffix(subtype, "+json") || hasSuffix(subtype, "+xml") { return true }
        if HTTPHeaders.namesEqual(type, "application") {
            for known in knownApplicationSubtypes where HTTPHeaders.namesEqual(subtype, known) { return true }
            return false
        }
        if HTTPHeaders.namesEqual(type, "image") {
            return HTTPHeaders.namesEqual(subtype, "x-icon") || HTTPHeaders.namesEqual(subtype, "vnd.microsoft.icon")
                || HTTPHeaders.namesEqual(subtype, "bmp")
        }
        if HTTPHeaders.namesEqual(type, "font") {
            return HTTPHeaders.namesEqual(subtype, "ttf") || HTTPHeaders.namesEqual(subtype, "otf")
        }
        return false
    }

    static func isEventStream(contentType: String) -> Bool {
        HTTPHeaders.namesEqual(mediaType(contentType), "text/event-stream")
    }

    /// `type/subtype` of a Content-Type, its parameters left off.
    private static func mediaType(_ contentType: String) -> Substring {
        contentType.split(separator: ";", maxSplits: 1).first?.trimmingSpaces ?? ""
    }

    private static func hasSuffix(_ s: Substring, _ suffix: String) -> Bool {
        s.count >= suffix.count && HTTPHeaders.namesEqual(s.suffix(suffix.count), suffix)
    }
}
