import TandemHTTP

/// Appends JSON straight into bytes: responses and events are built this way because
/// Foundation's encoder is much heavier per small struct (see docs/performance.md).
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    /// Whether each open container has a first member yet: a bit per level for the first 64
    /// (no array to allocate for every answer and event), an array only deeper than that.
    private var depth = 0
    private var hasMember: UInt64 = 0
    private var deeper: [Bool] = []

    public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    private mutating func separate() {
        guard depth > 0 else { return }
        let level = depth - 1
        if level < 64 {
            if hasMember & (1 << level) != 0 { bytes.append(UInt8(ascii: ",")) } else { hasMember |= 1 << level }
        } else {
            if deeper[level - 64] { bytes.append(UInt8(ascii: ",")) } else { deeper[level - 64] = true }
        }
    }

    private mutating func open() {
        if depth < 64 { hasMember &= ~(1 << depth) } else { deeper.append(false) }
        depth += 1
    }

    private mutating func close() {
        depth -= 1
        if depth >= 64 { deeper.removeLast() }
    }

    public mutating func beginObject() { beforeValue(); bytes.append(UInt8(ascii: "{")); open() }
    public mutating func endObject() { close(); bytes.append(UInt8(ascii: "}")) }
    public mutating func beginArray() { beforeValue(); bytes.append(UInt8(ascii: "[")); open() }
    public mutating func endArray() { close(); bytes.append(UInt8(ascii: "]")) }

    /// Writes `"key":` so that the next value call completes the member. Keys are the
    /// server's own literals, known to need no escape, so they are copied as they are: every
    /// event frames several.
    public mutating func key(_ k: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        append(k)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        // The value that follows must not add another comma.
        pendingMember = true
    }

    /// A key that is data (a `JSONValue` object's), escaped.
    public mutating func key(escaping k: String) {
        separate()
        JSONEscaping.appendString(k, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        // The value that follows must not add another comma.
        pendingMember = true
    }

    private var pendingMember = false

    private mutating func beforeValue() {
        if pendingMember {
            // key() already marked the container as having a member.
            pendingMember = false
        } else {
            separate()
        }
    }

    public mutating func string(_ s: String) { beforeValue(); JSONEscaping.appendString(s, to: &bytes) }
    public mutating func int(_ n: Int) { beforeValue(); appendInt(n) }
    public mutating func double(_ d: Double) {
        beforeValue()
        guard d.isFinite else { append("null"); return }
        // `description` (shortest round trip), without an interpolation's buffer around it,
        // and copied as one buffer: appending a String's `utf8` view goes byte by byte.
        var text = d.description
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }
    public mutating func bool(_ b: Bool) { beforeValue(); append(b ? "true" : "false") }
    public mutating func null() { beforeValue(); append("null") }
    /// Splices already-encoded JSON in as one value.
    public mutating func raw(_ json: [UInt8]) { beforeValue(); bytes.append(contentsOf: json) }

    /// Text outside any JSON value (the framing of Server-Sent Events around it).
    public mutating func text(_ s: StaticString) { append(s) }

    /// A literal's bytes as one buffer: appending a String's `utf8` view goes byte by byte.
    private mutating func append(_ s: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    public mutating func optionalString(_ s: String?) { if let s { string(s) } else { null() } }
    public mutating func optionalInt(_ n: Int?) { if let n { int(n) } else { null() } }

    private mutating func appendInt(_ n: Int) {
        if n == 0 { bytes.append(UInt8(ascii: "0")); return }
        var v = n.magnitude
        var tmp: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                  UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var len = 0
        withUnsafeMutableBytes(of: &tmp) { buf in
            while v > 0 {
                buf[19 - len] = UInt8(v % 10) + 48
                v /= 10
                len += 1
            }
        }
        if n < 0 { bytes.append(UInt8(ascii: "-")) }
        withUnsafeBytes(of: &tmp) { buf in bytes.append(contentsOf: buf[(20 - len)...]) }
    }
}

extension JSONWriter {
    /// Writes a whole `JSONValue` tree.
    public mutating func value(_ v: JSONValue) {
        switch v {
        case .null: null()
        case .bool(let b): bool(b)
        case .integer(let n): int(n)
        case .number(let d): double(d)
        case .string(let s): string(s)
        case .array(let items):
            beginArray()
            for item in items { value(item) }
            endArray()
        case .object(let members):
            beginObject()
            for (k, item) in members {
                key(escaping: k)
                value(item)
            }
            endObject()
        }
    }

    public static func encode(_ v: JSONValue) -> [UInt8] {
        var w = JSONWriter()
        w.value(v)
        return w.bytes
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(elements) }
    public init(nilLiteral: ()) { self = .null }
}
