/// Accumulates components into normalized splices: empty components vanish, neighbours of
/// one kind merge, and inserts and deletes that touch merge into one splice (insert
/// first), so every way of writing a change yields the same operation.
struct OperationBuilder {
    /// The first finished splice is kept apart: most operations have one (a keystroke, each
    /// step of a stale edit's transform), and an array would cost an allocation every time.
    private var first: TextOperation.Splice?
    private var more: [TextOperation.Splice] = []
    private var pending: TextOperation.Splice?
    /// Position reached in the base document.
    private(set) var baseLength = 0

    mutating func retain(_ count: Int) {
        guard count > 0 else { return }
        flush()
        baseLength += count
    }

    mutating func insert(_ text: String) {
        guard !text.isEmpty else { return }
        if pending == nil {
            pending = TextOperation.Splice(position: baseLength, deleted: 0, inserted: text)
        } else {
            pending!.inserted += text
        }
    }

    mutating func delete(_ count: Int) {
        guard count > 0 else { return }
        if pending == nil {
            pending = TextOperation.Splice(position: baseLength, deleted: count, inserted: "")
        } else {
            pending!.deleted += count
        }
        baseLength += count
    }

    mutating func add(_ splice: TextOperation.Splice) {
        retain(splice.position - baseLength)
        insert(splice.inserted)
        delete(splice.deleted)
    }

    private mutating func flush() {
        if let splice = pending {
            if first == nil { first = splice } else { more.append(splice) }
            pending = nil
        }
    }

    mutating func build() -> TextOperation {
        flush()
        guard let first else { return TextOperation(normalized: [], baseLength: baseLength) }
        if more.isEmpty { return TextOperation(one: first, baseLength: baseLength) }
        return TextOperation(normalized: [first] + more, baseLength: baseLength)
    }

    /// Finishes with retained text up to `length`.
    mutating func build(length: Int) -> TextOperation {
        retain(length - baseLength)
        return build()
    }
}
