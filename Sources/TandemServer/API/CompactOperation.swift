import TandemCore

/// The compact TextOperation form of the contract: `[5, "hello", -3, 10]`
/// — a positive integer retains, a string inserts, a negative integer deletes.
enum CompactOperation {
    static func decode(_ value: JSONValue) throws(APIError) -> [TextOperation.Component] {
        guard case .array(let items) = value else {
            throw .invalidField("ops", "must be an array of integers and strings")
        }
        var components: [TextOperation.Component] = []
        components.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            switch item {
            case .string(let s):
                guard !s.isEmpty else { throw .invalidField("ops[\(i)]", "an insert must not be empty") }
                components.append(.insert(s))
            default:
                guard let n = item.intValue else {
                    let why = item.typeName == "number" ? JSONValue.integerExpected(item) : "must be a non-zero integer or a string, not \(item.typeName)"
                    throw .invalidField("ops[\(i)]", why)
                }
                guard n != 0 else { throw .invalidField("ops[\(i)]", "0 is neither a retain nor a delete") }
                components.append(n > 0 ? .retain(n) : .delete(-n))
            }
        }
        return components
    }

    static func write(_ op: TextOperation, to w: inout JSONWriter) {
        w.beginArray()
        op.forEachComponent { write($0, to: &w) }
        w.endArray()
    }

    /// The same array from a journal's coding, without rebuilding the operation first (empty
    /// when the coding's arrays do not line up).
    static func write(_ coding: OperationCoding, to w: inout JSONWriter) {
        w.beginArray()
        _ = coding.forEachComponent { write($0, to: &w) }
        w.endArray()
    }

    private static func write(_ c: TextOperation.Component, to w: inout JSONWriter) {
        switch c {
        case .retain(let n): w.int(n)
        case .insert(let s): w.string(s)
        case .delete(let n): w.int(-n)
        }
    }

    static func encode(_ op: TextOperation) -> [UInt8] {
        var w = JSONWriter(capacity: 32)
        write(op, to: &w)
        return w.bytes
    }
}
