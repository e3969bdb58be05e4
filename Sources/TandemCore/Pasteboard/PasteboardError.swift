/// Why a pasteboard refused a write. Nothing is changed by a refused write.
public enum PasteboardError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A limit of `PasteboardLimits` would be exceeded.
    case tooLarge(String)
    /// An item has no representation.
    case emptyItem(index: Int)
    /// An item has two representations of one type.
    case duplicateType(String, index: Int)
    /// A type that is neither a UTI nor a MIME type.
    case invalidType(String)

    public var description: String {
        switch self {
        case .tooLarge(let what): what
        case .emptyItem(let i): "item \(i) has no representation"
        case .duplicateType(let t, let i): "item \(i) has two representations of type \(t)"
        case .invalidType(let t): "'\(t)' is neither a UTI nor a MIME type"
        }
    }
}
