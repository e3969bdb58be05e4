/// A parsed JSON value. Request bodies are small, so a tree is cheap; Foundation's decoders
/// are not used, as on Linux they are much heavier than this parser (see docs/performance.md).
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    /// Integers keep their exact value (positions, revisions) instead of going through Double.
    case integer(Int)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case let (.bool(x), .bool(y)): x == y
        case let (.number(x), .number(y)): x == y
        case let (.integer(x), .integer(y)): x == y
        case let (.integer(x), .number(y)), let (.number(y), .integer(x)): Double(x) == y
        case let (.string(x), .string(y)): x == y
        case let (.array(x), .array(y)): x == y
        case let (.object(x), .object(y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    public var objectKeys: [String]? {
        guard case .object(let members) = self else { return nil }
        return members.map(\.0)
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// Largest integer a client may send: what every JSON peer (JavaScript's numbers
    /// included) holds exactly, and far from where Int arithmetic on it could overflow.
    public static let maxSafeInteger = 9_007_199_254_740_991

    /// An integer written as one (`3`, never `3.0` or `3e0`) within ±`maxSafeInteger`.
    public var intValue: Int? {
        guard case .integer(let i) = self, i >= -Self.maxSafeInteger, i <= Self.maxSafeInteger else { return nil }
        return i
    }

    /// Any number, as a Double (times, durations).
    public var numberValue: Double? {
        switch self {
        case .number(let d): d
        case .integer(let i): Double(i)
        default: nil
        }
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var isNull: Bool { self == .null }

    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number, .integer: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension JSONValue {
    /// Why a value is not what `intValue` takes, for a field's error message.
    static func integerExpected(_ value: JSONValue) -> String {
        switch value {
        case .integer, .number:
            "must be an integer from -\(maxSafeInteger) to \(maxSafeInteger), written without a fraction or an exponent"
        default:
            "must be an integer, not \(value.typeName)"
        }
    }
}
