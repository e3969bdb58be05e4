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

// MARK: - Splices

extension TextOperation {
    /// Builds an operation from splices in base positions, ascending and not overlapping.
    /// Splices that touch are merged and empty ones dropped.
    public init(splices: [Splice], baseLength: Int) throws(OperationError) {
        guard baseLength >= 0 else { throw .invalidComponent("base length must not be negative, got \(baseLength)") }
        guard baseLength <= Self.maxLength else { throw .invalidComponent("base length \(baseLength) is more than \(Self.maxLength)") }
        var builder = OperationBuilder()
        var end = 0
        for splice in splices {
            guard splice.deleted >= 0 else {
                throw .invalidComponent("splice at \(splice.position) deletes a negative count \(splice.deleted)")
            }
            // Compared without adding: a damaged stored splice can hold counts near Int.max.
            guard splice.position >= 0, splice.deleted <= baseLength - splice.position else {
                let end = splice.position.addingReportingOverflow(splice.deleted)
                throw .positionOutOfRange(position: splice.position < 0 ? splice.position : end.overflow ? .max : end.partialValue,
                                          length: baseLength)
            }
            guard splice.position >= end else {
                throw .invalidComponent("splice at \(splice.position) overlaps or precedes the previous one, which ends at \(end)")
            }
            builder.add(splice)
            end = splice.position + splice.deleted
        }
        self = builder.build(length: baseLength)
    }

    /// The normalized splices: positions in the base document, ascending, never touching.
    public var splices: [Splice] {
        switch storage {
        case .identity: []
        case .one(let splice): [splice]
        case .many(let splices): splices
        }
    }

    /// Where the change lands in the resulting document: the smallest range covering all
    /// inserted text, or the empty range at the deletion point for a pure deletion; nil for
    /// the identity.
    public var changedRange: Range<Int>? {
        var lower: Int?
        var upper = 0
        var delta = 0
        forEachSplice { splice in
            let start = splice.position + delta
            let length = splice.inserted.utf16.count
            if lower == nil { lower = start }
            upper = start + length
            delta += length - splice.deleted
        }
        guard let lower else { return nil }
        return lower..<upper
    }
}

extension TextOperation {
    func reverseForEachSplice(_ body: (Splice) -> Void) {
        switch storage {
        case .identity: break
        case .one(let splice): body(splice)
        case .many(let splices): for splice in splices.reversed() { body(splice) }
        }
    }

    /// The number of units it inserts.
    var insertedCount: Int {
        var n = 0
        forEachSplice { n += $0.inserted.utf16.count }
        return n
    }
}

// MARK: - Building from a range

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
