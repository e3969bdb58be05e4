/// A change to a whole text: the compact TextOperation of the REST API.
///
/// As components it walks the base document from start to end: `retain(n)` keeps n UTF-16
/// code units, `insert(s)` inserts s, `delete(n)` removes n. Retained plus deleted counts
/// equal `baseLength`. The same change as splices is a list of "at base position p, delete
/// d units and insert s", which is how it is stored.
///
/// Operations are always normalized, so equal changes compare equal: no empty components,
/// no two adjacent components of one kind, and an insert next to a delete comes first.
///
/// Memory: an operation with no splice or one splice stores it inline (48 bytes, see
/// `MemoryLayout<TextOperation>.size`) and allocates nothing beyond the inserted String,
/// which itself is inline up to 15 UTF-8 bytes; so typing one character allocates nothing.
/// Two or more splices live in one array.
public struct TextOperation: Sendable, Hashable {
    public enum Component: Sendable, Hashable {
        case retain(Int)
        case insert(String)
        case delete(Int)
    }

    /// At `position` in the base document, delete `deleted` UTF-16 code units and insert
    /// `inserted` in their place.
    public struct Splice: Sendable, Hashable {
        public var position: Int
        public var deleted: Int
        public var inserted: String

        public init(position: Int, deleted: Int, inserted: String) {
            self.position = position
            self.deleted = deleted
            self.inserted = inserted
        }
    }

    enum Storage: Sendable, Hashable {
        case identity
        case one(Splice)
        /// Two or more splices, ascending, each separated from the next by retained text.
        case many([Splice])
    }

    var storage: Storage

    /// The length of the document it applies to, in UTF-16 code units.
    public private(set) var baseLength: Int

    /// Takes splices already normalized (ascending, non-empty, separated by gaps).
    init(one splice: Splice, baseLength: Int) {
        self.baseLength = baseLength
        storage = .one(splice)
    }

    init(normalized splices: [Splice], baseLength: Int) {
        self.baseLength = baseLength
        switch splices.count {
        case 0: storage = .identity
        case 1: storage = .one(splices[0])
        default: storage = .many(splices)
        }
    }

    /// The longest document an operation may span, in UTF-16 code units: far beyond any
    /// text a server holds, and far enough from `Int.max` that no sum of lengths overflows.
    public static let maxLength = Int(Int32.max)

    /// Validates and normalizes `components`.
    ///
    /// Throws `invalidComponent` for a count below 1, an empty insert, or retains and
    /// deletes that together span more than `maxLength`.
    public init(_ components: [Component]) throws(OperationError) {
        var builder = OperationBuilder()
        for (index, component) in components.enumerated() {
            switch component {
            case .retain(let count), .delete(let count):
                guard count > 0 else {
                    let kind = if case .retain = component { "retain" } else { "delete" }
                    throw .invalidComponent("\(kind) count must be positive, got \(count) at component \(index)")
                }
                // Checked before adding: client counts summed past Int.max trapped.
                guard count <= Self.maxLength - builder.baseLength else {
                    throw .invalidComponent("the operation spans more than \(Self.maxLength) characters at component \(index)")
                }
                if case .retain = component { builder.retain(count) } else { builder.delete(count) }
            case .insert(let text):
                guard !text.isEmpty else { throw .invalidComponent("insert of empty text at component \(index)") }
                builder.insert(text)
            }
        }
        self = builder.build()
    }

    /// The operation that keeps a document of `length` UTF-16 code units as it is.
    public static func identity(length: Int) -> TextOperation {
        TextOperation(normalized: [], baseLength: max(0, length))
    }

    /// The normalized components.
    public var components: [Component] {
        var result: [Component] = []
        forEachComponent { result.append($0) }
        return result
    }

    /// The components in order, without building the array (every answer and event writes
    /// its operation this way).
    public func forEachComponent(_ body: (Component) -> Void) {
        var walk = ComponentWalk()
        forEachSplice { walk.splice($0, body) }
        walk.end(baseLength: baseLength, body)
    }

    /// Turns splices given in order into components: the retains between and after them
    /// are implied.
    struct ComponentWalk {
        private var position = 0

        mutating func splice(_ splice: Splice, _ body: (Component) -> Void) {
            if splice.position > position { body(.retain(splice.position - position)) }
            if !splice.inserted.isEmpty { body(.insert(splice.inserted)) }
            if splice.deleted > 0 { body(.delete(splice.deleted)) }
            position = splice.position + splice.deleted
        }

        func end(baseLength: Int, _ body: (Component) -> Void) {
            if baseLength > position { body(.retain(baseLength - position)) }
        }
    }

    /// The length of the document it produces, in UTF-16 code units.
    public var targetLength: Int {
        var length = baseLength
        forEachSplice { length += $0.inserted.utf16.count - $0.deleted }
        return length
    }

    /// True when it changes nothing.
    public var isIdentity: Bool {
        if case .identity = storage { return true }
        return false
    }

    @inline(__always)
    func forEachSplice(_ body: (Splice) throws(OperationError) -> Void) throws(OperationError) {
        switch storage {
        case .identity: break
        case .one(let splice): try body(splice)
        case .many(let splices): for splice in splices { try body(splice) }
        }
    }

    @inline(__always)
    func forEachSplice(_ body: (Splice) -> Void) {
        switch storage {
        case .identity: break
        case .one(let splice): body(splice)
        case .many(let splices): for splice in splices { body(splice) }
        }
    }
}
