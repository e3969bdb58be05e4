import TandemCore

/// The edit bodies clients send on every keystroke, `{"base":N,"ops":[…]}` and
/// `{"base":N,"insert":"…","at":N}` (base optional, members in any order), read straight from
/// the bytes: the general decoder builds a `JSONValue` tree, then looks each field up in it,
/// work a keystroke's few fields do not need (see docs/performance.md).
///
/// Only the plain case is read here. Anything else is nil, and the general decoder reads the
/// body and words any error: another member, an escape or a control character in a string,
/// a number other than a plain integer (a sign on `base` or `at`, a leading zero, a fraction,
/// an exponent), a zero or an empty component in `ops`, `null`, a duplicate member, invalid
/// UTF-8. So this never answers differently from the general decoder, only sooner
/// (`EditBodyScannerTests` holds the two to that, body by body).
struct EditBodyScanner {
    struct Edit: Equatable {
        var base: Int?
        var form: EditForm
    }

    private let p: UnsafeBufferPointer<UInt8>
    private var i = 0

    private init(_ p: UnsafeBufferPointer<UInt8>) { self.p = p }

    static func scan(_ body: [UInt8]) -> Edit? {
        body.withUnsafeBufferPointer { bytes in
            var scanner = EditBodyScanner(bytes)
            return scanner.object()
        }
    }

    private mutating func object() -> Edit? {
        // Each is nil until its member is read, then never nil again: a second one is a duplicate.
        var base: Int?, at: Int?, insert: String?, ops: [TextOperation.Component]?
        guard take(UInt8(ascii: "{")) else { return nil }
        repeat {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let keyStart = i
            while i < p.count, p[i] != UInt8(ascii: "\"") { i += 1 }
            let key = UnsafeBufferPointer(rebasing: p[keyStart..<i])
            i += 1
            guard take(UInt8(ascii: ":")) else { return nil }
            switch key.count {
            case 4 where Self.equal(key, "base"):
                guard base == nil, let n = natural() else { return nil }
                base = n
            case 2 where Self.equal(key, "at"):
                guard at == nil, let n = natural() else { return nil }
                at = n
            case 6 where Self.equal(key, "insert"):
                guard insert == nil, let s = string() else { return nil }
                insert = s
            case 3 where Self.equal(key, "ops"):
                guard ops == nil, let components = components() else { return nil }
                ops = components
            default:
                return nil
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")) else { return nil }
        skipSpace()
        guard i == p.count else { return nil }
        switch (ops, insert, at) {
        case (let ops?, nil, nil): return Edit(base: base, form: .ops(ops))
        case (nil, let text?, let position?): return Edit(base: base, form: .insert(text, at: position))
        default: return nil
        }
    }

    /// `[n, "s", …]`: non-zero integers and non-empty strings.
    private mutating func components() -> [TextOperation.Component]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var components: [TextOperation.Component] = []
        if take(UInt8(ascii: "]")) { return components }
        repeat {
            skipSpace()
            if i < p.count, p[i] == UInt8(ascii: "\"") {
                guard let s = string(), !s.isEmpty else { return nil }
                components.append(.insert(s))
            } else {
                let negative = i < p.count && p[i] == UInt8(ascii: "-")
                if negative { i += 1 }
                // JSON has no space between a minus and its digits: `- 1` is the tree's to refuse.
                guard let n = natural(skippingSpace: !negative), n != 0 else { return nil }
                components.append(negative ? .delete(n) : .retain(n))
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "]")) else { return nil }
        return components
    }

    /// Digits without a sign, a leading zero, a fraction or an exponent, at most 15 of them.
    private mutating func natural(skippingSpace: Bool = true) -> Int? {
        if skippingSpace { skipSpace() }
        let start = i
        var n = 0
        // Digits past the 15th are counted, never added in: 20 nines overflowed Int.
        while i < p.count, p[i] >= UInt8(ascii: "0"), p[i] <= UInt8(ascii: "9") {
            if i - start < 15 { n = n * 10 + Int(p[i] - UInt8(ascii: "0")) }
            i += 1
        }
        let digits = i - start
        guard digits > 0, digits <= 15, digits == 1 || p[start] != UInt8(ascii: "0") else { return nil }
        // A fraction or an exponent would make this a JSON number the general decoder reads.
        if i < p.count, p[i] == UInt8(ascii: ".") || p[i] | 0x20 == UInt8(ascii: "e") { return nil }
        return n
    }

    /// A string with no escape and no control character, valid UTF-8.
    private mutating func string() -> String? {
        skipSpace()
        guard i < p.count, p[i] == UInt8(ascii: "\"") else { return nil }
        i += 1
        let start = i
        while i < p.count {
            let b = p[i]
            if b == UInt8(ascii: "\"") { break }
            if b == UInt8(ascii: "\\") || b < 0x20 { return nil }
            i += 1
        }
        guard i < p.count else { return nil }
        let s = String(validating: UnsafeBufferPointer(rebasing: p[start..<i]), as: UTF8.self)
        i += 1
        return s
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard i < p.count, p[i] == byte else { return false }
        i += 1
        return true
    }

    private mutating func skipSpace() {
        while i < p.count, p[i] == 0x20 || p[i] == 0x0A || p[i] == 0x0D || p[i] == 0x09 { i += 1 }
    }

    private static func equal(_ key: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        key.elementsEqual(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }
}
