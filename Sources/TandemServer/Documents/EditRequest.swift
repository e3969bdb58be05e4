import TandemCore

/// The four body forms of the contract, decoded but not yet checked against the document.
enum EditForm: Equatable, Sendable {
    case ops([TextOperation.Component])
    case insert(String, at: Int)
    case delete(from: Int, to: Int)
    case replace(from: Int, to: Int, with: String)

    /// At most how many splices the operation has (each insert or delete run may be one).
    var spliceCount: Int {
        if case .ops(let components) = self { return components.count { if case .retain = $0 { false } else { true } } }
        return 1
    }
}

/// One edit request: its form becomes an operation once the document's length at `base`
/// is known.
struct EditRequest: Equatable, Sendable {
    var base: Int?
    var options: EditOptions
    var form: EditForm

    func build(_ length: Int) throws(APIError) -> TextOperation {
        do throws(OperationError) {
            switch form {
            case .ops(let components):
                let op = try TextOperation(components)
                if op.baseLength != length {
                    throw OperationError.lengthMismatch(expected: op.baseLength, actual: length)
                }
                return op
            case .insert(let text, let at): return try TextOperation.insert(text, at: at, length: length)
            case .delete(let from, let to): return try TextOperation.delete(from: from, to: to, length: length)
            case .replace(let from, let to, let with):
                return try TextOperation.replace(from: from, to: to, with: with, length: length)
            }
        } catch { throw .operation(error) }
    }
}

/// What an edit did: the revision it made (the current one for a no-op), the operation as
/// applied (transformed, for a stale base; nil for a no-op) and the caller's selection after it.
struct EditResult: Sendable {
    var revision: Int
    var operation: TextOperation?
    var selection: Selection?
}
