import Glibc

/// Header fields in the order they came, with case-insensitive look-up (RFC 9110 §5.1).
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public private(set) var fields: [Field]

    public init() { fields = [] }
    public init(_ pairs: [(String, String)]) { fields = pairs.map { Field(name: $0.0, value: $0.1) } }
    public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The first value of `name`; `nil` when absent.
    public subscript(name: String) -> String? {
        for field in fields where Self.namesEqual(field.name, name) { return field.value }
        return nil
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.namesEqual($0.name, name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// Whether both are the same field list in memory (one shared, never-copied set such as
    /// `HTTPResponse.jsonHeaders`), told without comparing a string.
    public func sharesStorage(with other: HTTPHeaders) -> Bool {
        fields.withUnsafeBufferPointer { a in
            other.fields.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress && a.count == b.count }
        }
    }

    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every value of `name` with one.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append(Field(name: name, value: value))
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { Self.namesEqual($0.name, name) }
    }

    /// Whether a comma-separated header (e.g. `Connection`) lists `token`, ignoring case.
    public func hasToken(_ token: String, in name: String) -> Bool {
        for field in fields where Self.namesEqual(field.name, name) {
            if Self.list(field.value, contains: token) { return true }
        }
        return false
    }

    /// Whether a comma-separated list holds `token` (ASCII case-insensitive, blanks around
    /// members ignored). Scanned in place over the bytes: this runs on every response
    /// (Vary, Cache-Control, Connection), where splitting the list would allocate.
    static func list(_ list: String, contains token: String) -> Bool {
        var list = list, token = token
        return list.withUTF8 { l in
            token.withUTF8 { t in
                var i = 0
                while i <= l.count {
                    var j = i
                    while j < l.count && l[j] != UInt8(ascii: ",") { j += 1 }
                    var a = i, b = j
                    while a < b && (l[a] == 32 || l[a] == 9) { a += 1 }
                    while b > a && (l[b - 1] == 32 || l[b - 1] == 9) { b -= 1 }
                    if b - a == t.count && asciiCaseInsensitiveEqual(UnsafeBufferPointer(rebasing: l[a..<b]), t) { return true }
                    i = j + 1
                }
                return false
            }
        }
    }

    /// ASCII case-insensitive comparison; header names are tokens, so ASCII is all there is.
    @inlinable
    public static func namesEqual<A: StringProtocol, B: StringProtocol>(_ a: A, _ b: B) -> Bool {
        let au = a.utf8, bu = b.utf8
        guard au.count == bu.count else { return false }
        // Native strings and their substrings are contiguous UTF-8: compare the bytes
        // directly rather than through two generic iterators.
        if let equal = au.withContiguousStorageIfAvailable({ x in
            bu.withContiguousStorageIfAvailable { y in asciiCaseInsensitiveEqual(x, y) }
        }), let equal {
            return equal
        }
        for (x, y) in zip(au, bu) where x != y {
            if asciiLower(x) != asciiLower(y) { return false }
        }
        return true
    }

    /// Byte-for-byte equality over contiguous UTF-8 (String's `==` also normalizes Unicode,
    /// which a path segment compared with an ASCII literal never needs).
    static func bytesEqual(_ a: Substring, _ b: String) -> Bool {
        let equal = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in x.count == y.count && (x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0) }
        }
        return (equal ?? nil) ?? a.utf8.elementsEqual(b.utf8)
    }

    /// ASCII case-insensitive prefix test (media types, tokens), on bytes.
    public static func hasPrefixIgnoringCase(_ s: String, _ prefix: String) -> Bool {
        let u = s.utf8
        guard u.count >= prefix.utf8.count else { return false }
        return namesEqual(s[..<u.index(u.startIndex, offsetBy: prefix.utf8.count)], prefix)
    }

    @inlinable
    static func asciiLower(_ c: UInt8) -> UInt8 { (c >= 65 && c <= 90) ? c | 0x20 : c }

    @inlinable
    static func asciiCaseInsensitiveEqual(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
        guard x.count == y.count else { return false }
        for i in 0..<x.count where x[i] != y[i] {
            if asciiLower(x[i]) != asciiLower(y[i]) { return false }
        }
        return true
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs, by bytes (not Characters: grapheme
    /// breaking would outweigh the rest of a header check, and the spaces are ASCII).
    public var trimmingSpaces: Substring {
        let s = Substring(self)
        let u = s.utf8
        var start = u.startIndex, end = u.endIndex
        while start < end, u[start] == 32 || u[start] == 9 { start = u.index(after: start) }
        while start < end {
            let last = u.index(before: end)
            guard u[last] == 32 || u[last] == 9 else { break }
            end = last
        }
        return s[start..<end]
    }
}
