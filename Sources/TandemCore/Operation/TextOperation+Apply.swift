extension TextOperation {
    /// That the operation fits `rope`: its length, and no splice starting or ending inside a
    /// surrogate pair.
    func check(against rope: Rope) throws(OperationError) {
        guard rope.utf16Count == baseLength else {
            throw .lengthMismatch(expected: baseLength, actual: rope.utf16Count)
        }
        try forEachSplice { (splice) throws(OperationError) in
            guard rope.isCharacterBoundary(splice.position) else { throw .splitsSurrogatePair(at: splice.position) }
            let end = splice.position + splice.deleted
            guard end == splice.position || rope.isCharacterBoundary(end) else { throw .splitsSurrogatePair(at: end) }
        }
    }

    /// Applies the operation to `rope`. Everything is checked first (the length, and that
    /// no splice starts or ends inside a surrogate pair), so on error `rope` is unchanged.
    public func apply(to rope: inout Rope) throws(OperationError) {
        try check(against: rope)
        switch storage {
        case .identity:
            break
        case .one(let splice):
            rope.replace(splice.position..<splice.position + splice.deleted, with: splice.inserted)
        case .many(let splices):
            // Last first, so the base positions of the earlier splices still hold.
            for splice in splices.reversed() {
                rope.replace(splice.position..<splice.position + splice.deleted, with: splice.inserted)
            }
        }
    }

    /// The text `string` becomes, with the same checks as `apply(to:)` for ropes.
    public func apply(to string: String) throws(OperationError) -> String {
        let units = Array(string.utf16)
        guard units.count == baseLength else {
            throw .lengthMismatch(expected: baseLength, actual: units.count)
        }
        func isBoundary(_ offset: Int) -> Bool {
            offset == 0 || offset == units.count || !UTF16.splitsSurrogatePair(units[offset - 1], units[offset])
        }
        try forEachSplice { (splice) throws(OperationError) in
            guard isBoundary(splice.position) else { throw .splitsSurrogatePair(at: splice.position) }
            guard isBoundary(splice.position + splice.deleted) else {
                throw .splitsSurrogatePair(at: splice.position + splice.deleted)
            }
        }
        if isIdentity { return string }
        var result: [UInt16] = []
        result.reserveCapacity(targetLength)
        var position = 0
        forEachSplice { splice in
            result.append(contentsOf: units[position..<splice.position])
            result.append(contentsOf: splice.inserted.utf16)
            position = splice.position + splice.deleted
        }
        result.append(contentsOf: units[position...])
        return String(utf16Units: result)
    }

    /// The operation that undoes this one: applied after it, it restores `rope`, which must
    /// be the document this operation applies to (the text before it). The deleted text is
    /// read from `rope`, so it is checked as `apply(to:)` checks: a `rope` of another length
    /// or a splice that cuts a surrogate pair is an error, never a clipped or U+FFFD inverse.
    public func inverted(against rope: Rope) throws(OperationError) -> TextOperation {
        try check(against: rope)
        var builder = OperationBuilder()
        var delta = 0
        forEachSplice { splice in
            let inserted = splice.inserted.utf16.count
            builder.retain(splice.position + delta - builder.baseLength)
            builder.insert(rope.substring(splice.position..<splice.position + splice.deleted))
            builder.delete(inserted)
            delta += inserted - splice.deleted
        }
        return builder.build(length: targetLength)
    }

    /// `inverted(against:)` for a document held as a String.
    public func inverted(against string: String) throws(OperationError) -> TextOperation {
        try inverted(against: Rope(string))
    }
}
