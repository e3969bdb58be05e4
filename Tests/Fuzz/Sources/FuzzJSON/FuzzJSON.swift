import FuzzSupport
@testable import TandemServer

/// JSON bytes → `JSONValue`. The parser must never trap; what it accepts, `JSONWriter` writes
/// back as JSON the parser reads to the same value (strings byte for byte), and writing that
/// again gives the same bytes.
func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    guard let value = try? JSONParser.parse(input) else { return 0 }
    let written = JSONWriter.encode(value)
    let reread: JSONValue
    do {
        reread = try JSONParser.parse(written)
    } catch {
        require(false, "the writer's output does not parse (\(error)): \(escaped(written))", input: input)
        return 0
    }
    require(same(value, reread), "the value changed on the way through the writer: \(escaped(written))", input: input)
    require(JSONWriter.encode(reread) == written, "writing the reread value gives other bytes", input: input)
    return 0
}

/// Equality as `JSONValue.==` but with strings and keys compared byte for byte: Swift's `==`
/// on strings is canonical equivalence, which would hide a changed normalization.
func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case let (.string(x), .string(y)): return x.utf8.elementsEqual(y.utf8)
    case let (.array(x), .array(y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
    case let (.object(x), .object(y)):
        return x.count == y.count && zip(x, y).allSatisfy { $0.0.utf8.elementsEqual($1.0.utf8) && same($0.1, $1.1) }
    default: return a == b
    }
}
