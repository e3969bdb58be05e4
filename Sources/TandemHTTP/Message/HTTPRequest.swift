/// A request method: any token (RFC 9110 §9), with the common ones named.
public struct HTTPMethod: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }
    public var description: String { rawValue }

    public static let get = HTTPMethod("GET")
    public static let head = HTTPMethod("HEAD")
    public static let post = HTTPMethod("POST")
    public static let put = HTTPMethod("PUT")
    public static let patch = HTTPMethod("PATCH")
    public static let delete = HTTPMethod("DELETE")
    public static let options = HTTPMethod("OPTIONS")

    /// GET, HEAD, OPTIONS and TRACE: read-only by definition (RFC 9110 §9.2.1).
    public var isSafe: Bool {
        switch rawValue {
        case "GET", "HEAD", "OPTIONS", "TRACE": true
        default: false
        }
    }
}

public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }
    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)
    public var description: String { "HTTP/\(major).\(minor)" }
}

/// One complete request: head, whole body (chunked bodies already de-chunked) and trailers.
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// The request target exactly as sent: `/p?q`, `http://host/p?q` or `*` (the parser
    /// admits no other form). Route by `path` and `query`, which are the same for the first two.
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public var trailers: HTTPHeaders
    /// Path parameters captured by the router, percent-decoded (`:id` → `parameters["id"]`).
    public var parameters: [String: String]
    /// The route pattern that matched (`/documents/:id`), for metrics and logs.
    public var route: String?
    public var remoteAddress: String
    /// Runs work on the thread that reads the request's connection (its event loop): where a
    /// handler that had to wait elsewhere (for the cluster feed) goes on, so that the
    /// connection's work stays on its loop. Inline for requests made without a connection.
    public var executor: RequestExecutor = .inline

    public init(
        method: HTTPMethod, target: String, version: HTTPVersion = .http1_1,
        headers: HTTPHeaders = [:], body: [UInt8] = [], trailers: HTTPHeaders = [:],
        remoteAddress: String = ""
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        self.trailers = trailers
        self.parameters = [:]
        self.route = nil
        self.remoteAddress = remoteAddress
    }

    /// The path part of the target, still percent-encoded. In absolute-form
    /// (`http://host/p?q`) it is the URI's path, `/` when that is empty (RFC 9112 §3.2.1),
    /// so a request routes the same in either form.
    public var path: Substring {
        // By bytes on the contiguous UTF-8: cheaper than any search through the String's views.
        var target = target
        let (start, end) = target.withUTF8 { b -> (Int, Int) in
            let start = Self.authority(in: b)?.upperBound ?? 0
            var end = start
            while end < b.count && b[end] != UInt8(ascii: "?") { end += 1 }
            return (start, end)
        }
        if start == end && start > 0 { return "/" }
        if start == 0 && end == target.utf8.count { return Substring(target) }
        let u = target.utf8
        return Substring(u[u.index(u.startIndex, offsetBy: start)..<u.index(u.startIndex, offsetBy: end)])
    }

    /// The host the request is for, `uri-host [ ":" port ]`: an absolute-form target's
    /// authority, which then replaces the Host field (RFC 9112 §3.2.2), else the Host field.
    /// nil when there is neither (HTTP/1.0 without Host).
    public var host: Substring? {
        var target = target
        if let r = target.withUTF8({ Self.authority(in: $0) }) {
            let u = target.utf8
            return Substring(u[u.index(u.startIndex, offsetBy: r.lowerBound)..<u.index(u.startIndex, offsetBy: r.upperBound)])
        }
        return headers["Host"].map { Substring($0) }
    }

    /// Where the authority of an absolute-form target (`scheme://authority/path`) lies; nil
    /// for the other forms. The parser has checked it; here it is only found.
    static func authority(in b: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard let first = b.first, first != UInt8(ascii: "/"), first != UInt8(ascii: "*") else { return nil }
        var i = 0
        while i < b.count && b[i] != UInt8(ascii: ":") && b[i] != UInt8(ascii: "/") && b[i] != UInt8(ascii: "?") { i += 1 }
        guard b.count - i >= 3, b[i] == UInt8(ascii: ":"), b[i + 1] == UInt8(ascii: "/"), b[i + 2] == UInt8(ascii: "/") else { return nil }
        let start = i + 3
        var end = start
        while end < b.count && b[end] != UInt8(ascii: "/") && b[end] != UInt8(ascii: "?") { end += 1 }
        return start..<end
    }

    /// The raw query string after `?`, if any (an absolute-form authority has no `?` before it).
    public var query: Substring? {
        guard let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        return target[target.utf8.index(after: q)...]
    }

    /// The first value of a query parameter, percent- and `+`-decoded.
    public func queryValue(_ name: String) -> String? {
        guard let query else { return nil }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = PercentDecoding.decode(parts[0], plusAsSpace: true)
            if key == name {
                return parts.count > 1 ? (PercentDecoding.decode(parts[1], plusAsSpace: true) ?? "") : ""
            }
        }
        return nil
    }

    /// The body as UTF-8 text, or nil if it is not valid UTF-8.
    public var bodyText: String? {
        String(validating: body, as: UTF8.self)
    }

    /// The media type of the body without parameters, lowercased (`application/json`).
    public var mediaType: String? {
        guard let ct = headers["Content-Type"] else { return nil }
        let u = ct.utf8
        let base = ct[..<(u.firstIndex(of: UInt8(ascii: ";")) ?? u.endIndex)].trimmingSpaces
        if base.isEmpty { return nil }
        // Most bodies say it in lower case already: no new string then.
        if !base.utf8.contains(where: { $0 >= 65 && $0 <= 90 }) { return String(base) }
        return base.lowercased()
    }
}

public enum PercentDecoding {
    /// Decodes `%XX` escapes; nil when an escape is malformed or the result is not UTF-8.
    public static func decode<S: StringProtocol>(_ s: S, plusAsSpace: Bool = false) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(s.utf8.count)
        var it = s.utf8.makeIterator()
        while let b = it.next() {
            if b == UInt8(ascii: "%") {
                guard let h = it.next(), let l = it.next(), let hv = hexValue(h), let lv = hexValue(l) else { return nil }
                bytes.append(hv << 4 | lv)
            } else if plusAsSpace && b == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(b)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Where work for a request runs once it is resumed from another thread (`HTTPRequest.executor`).
public struct RequestExecutor: Sendable {
    private let run: @Sendable (@escaping @Sendable () -> Void) -> Void

    public init(_ run: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.run = run
    }

    /// Queues `work` (from any thread).
    public func execute(_ work: @escaping @Sendable () -> Void) { run(work) }

    /// Runs the work at once, on the caller's thread.
    public static let inline = RequestExecutor { $0() }

    /// The executor of the event loop running the calling thread; nil on any other thread.
    /// Work that another thread finishes for this loop (a store's outcome) comes back here,
    /// so its answer leaves with no further hop.
    public static var current: RequestExecutor? { EventLoop.current?.executor }
}
