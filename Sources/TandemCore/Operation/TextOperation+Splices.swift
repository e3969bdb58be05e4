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
