import Glibc

/// A route pattern split once into segments: `/documents/:id/edits`, `/static/*`.
struct RoutePattern: Sendable {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
        /// `*` as the last segment: the rest of the path, possibly empty.
        case wildcard
    }

    let text: String
    let segments: [Segment]

    init(_ text: String) {
        self.text = text
        var segments: [Segment] = []
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).dropFirst(text.hasPrefix("/") ? 1 : 0)
        for (i, part) in parts.enumerated() {
            if part == "*" {
                precondition(i == parts.count - 1, "`*` must be the last segment of \(text)")
                segments.append(.wildcard)
            } else if part.hasPrefix(":") {
                segments.append(.parameter(String(part.dropFirst())))
            } else {
                segments.append(.literal(String(part)))
            }
        }
        self.segments = segments
    }

    /// Whether a path of this many segments can match at all (checked before `match`).
    @inline(__always)
    func admits(segmentCount: Int) -> Bool {
        if case .wildcard = segments.last { return segmentCount >= segments.count - 1 }
        return segmentCount == segments.count
    }

    /// Captured parameters when `path` (split raw, so `%2F` never spans segments) matches.
    /// `escaped`: whether the path holds any `%` at all (see `hasEscapes`).
    func match(_ path: [Substring], escaped: Bool = true) -> [String: String]? {
        var parameters: [String: String] = [:]
        for (i, segment) in segments.enumerated() {
            switch segment {
            case .literal(let literal):
                guard i < path.count else { return nil }
                let raw = path[i]
                if escaped && raw.utf8.contains(UInt8(ascii: "%")) {
                    guard PercentDecoding.decode(raw) == literal else { return nil }
                } else if !HTTPHeaders.bytesEqual(raw, literal) {
                    return nil
                }
            case .parameter(let name):
                guard i < path.count, let value = Self.decodeSegment(path[i], escaped: escaped), !value.isEmpty else { return nil }
                parameters[name] = value
            case .wildcard:
                var rest: [String] = []
                for raw in path[i...] {
                    guard let value = Self.decodeSegment(raw, escaped: escaped) else { return nil }
                    rest.append(value)
                }
                parameters["*"] = rest.joined(separator: "/")
                return parameters
            }
        }
        return path.count == segments.count ? parameters : nil
    }

    /// A decoded path segment, or nil if it is malformed, holds a `/`, or is `.`/`..`.
    static func decodeSegment(_ raw: Substring, escaped: Bool = true) -> String? {
        guard let value = escaped && raw.utf8.contains(UInt8(ascii: "%")) ? PercentDecoding.decode(raw) : String(raw) else { return nil }
        if value == "." || value == ".." || value.utf8.contains(UInt8(ascii: "/")) || value.utf8.contains(0) { return nil }
        return value
    }

    /// Whether a path holds a percent escape anywhere, by one `memchr` over its bytes.
    static func hasEscapes(_ path: Substring) -> Bool {
        path.utf8.withContiguousStorageIfAvailable { $0.isEmpty ? false : memchr($0.baseAddress!, Int32(UInt8(ascii: "%")), $0.count) != nil }
            ?? path.utf8.contains(UInt8(ascii: "%"))
    }

    /// The segments of a request path, still percent-encoded; nil unless it is origin-form.
    static func split(_ path: Substring) -> [Substring]? {
        let utf8 = path.utf8
        guard utf8.first == UInt8(ascii: "/") else { return nil }
        // By bytes, into a small reserved array: the generic split is heavier than matching.
        var segments: [Substring] = []
        segments.reserveCapacity(6)
        var start = utf8.index(after: utf8.startIndex)
        while true {
            let end = utf8[start...].firstIndex(of: UInt8(ascii: "/")) ?? utf8.endIndex
            segments.append(path[start..<end])
            if end == utf8.endIndex { return segments }
            start = utf8.index(after: end)
        }
    }
}
