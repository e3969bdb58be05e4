extension TextOperation {
    /// Inserts `text` at `position` of a document of `length` UTF-16 code units.
    public static func insert(_ text: String, at position: Int, length: Int) throws(OperationError) -> TextOperation {
        try replace(from: position, to: position, with: text, length: length)
    }

    /// Deletes `from..<to` of a document of `length` UTF-16 code units.
    public static func delete(from: Int, to: Int, length: Int) throws(OperationError) -> TextOperation {
        try replace(from: from, to: to, with: "", length: length)
    }

    /// Replaces `from..<to` of a document of `length` UTF-16 code units with `text`.
    public static func replace(from: Int, to: Int, with text: String, length: Int) throws(OperationError) -> TextOperation {
        guard length >= 0 else { throw .invalidComponent("document length must not be negative, got \(length)") }
        guard from >= 0, from <= length else { throw .positionOutOfRange(position: from, length: length) }
        guard to >= 0, to <= length else { throw .positionOutOfRange(position: to, length: length) }
        guard from <= to else { throw .invalidComponent("range start \(from) is after its end \(to)") }
        var builder = OperationBuilder()
        builder.retain(from)
        builder.insert(text)
        builder.delete(to - from)
        return builder.build(length: length)
    }
}
