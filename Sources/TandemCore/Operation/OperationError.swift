/// Why an operation could not be built, combined or applied. Servers answer these with
/// 422: the request was well-formed but does not fit the document.
public enum OperationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The operation was made for a document of `expected` UTF-16 code units; the
    /// document (or the other operation) has `actual`.
    case lengthMismatch(expected: Int, actual: Int)
    /// `position` lies outside `0...length`.
    case positionOutOfRange(position: Int, length: Int)
    /// The operation cuts between the two halves of a surrogate pair at `at`.
    case splitsSurrogatePair(at: Int)
    /// A component or splice is malformed; the text says how.
    case invalidComponent(String)

    public var description: String {
        switch self {
        case let .lengthMismatch(expected, actual):
            "operation spans \(expected) characters but the document has \(actual) (lengths in UTF-16 code units)"
        case let .positionOutOfRange(position, length):
            "position \(position) is outside the document, which has \(length) characters (positions in UTF-16 code units, 0...\(length))"
        case let .splitsSurrogatePair(at):
            "position \(at) falls inside a character made of a surrogate pair (such as an emoji); edits must not split it"
        case let .invalidComponent(reason):
            "invalid operation: \(reason)"
        }
    }
}
