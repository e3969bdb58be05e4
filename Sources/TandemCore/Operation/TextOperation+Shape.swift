extension TextOperation {
    /// What `transform(a, b).0` needs of `b`: where it deletes and how much it inserts, never
    /// the inserted text itself. A stale edit is transformed through every logged change
    /// since its base; reading the shapes straight from the log spares decoding each change's
    /// text into a `String`, which was most of that cost.
    struct Shape {
        /// (position, deleted, inserted UTF-16 length), in the base, ascending, insert first.
        var splices: [(position: Int, deleted: Int, inserted: Int)] = []
        var baseLength = 0
    }

    /// Exactly `try TextOperation.transform(self, b).0` for a `b` of this shape: the same walk,
    /// with this operation's text first where both insert at one position.
    func transformed(through b: Shape) throws(OperationError) -> TextOperation {
        guard baseLength == b.baseLength else {
            throw .lengthMismatch(expected: baseLength, actual: b.baseLength)
        }
        if b.splices.isEmpty { return self }
        if isIdentity {
            var length = b.baseLength
            for s in b.splices { length += s.inserted - s.deleted }
            return .identity(length: length)
        }

        enum Part { case retain(Int), insert(Int), delete(Int) }
        var right: [Part] = []
        right.reserveCapacity(3 * b.splices.count + 1)
        var position = 0
        for s in b.splices {
            if s.position > position { right.append(.retain(s.position - position)) }
            if s.inserted > 0 { right.append(.insert(s.inserted)) }
            if s.deleted > 0 { right.append(.delete(s.deleted)) }
            position = s.position + s.deleted
        }
        if b.baseLength > position { right.append(.retain(b.baseLength - position)) }

        let left = components
        var i = 0, j = 0
        var l = left.first, r = right.first
        var aPrime = OperationBuilder()
        while true {
            switch (l, r) {
            case (nil, nil):
                return aPrime.build()
            case (.insert(let text)?, _):
                aPrime.insert(text)
                i += 1; l = i < left.count ? left[i] : nil
                continue
            case (_, .insert(let n)?):
                aPrime.retain(n)
                j += 1; r = j < right.count ? right[j] : nil
                continue
            case (nil, _), (_, nil):
                throw .lengthMismatch(expected: baseLength, actual: b.baseLength)
            default:
                break
            }
            let x: Int, y: Int
            switch l! {
            case .retain(let c), .delete(let c): x = c
            case .insert: x = 0
            }
            switch r! {
            case .retain(let c), .delete(let c): y = c
            case .insert: y = 0
            }
            let n = min(x, y)
            switch (l!, r!) {
            case (.retain, .retain): aPrime.retain(n)
            case (.delete, .retain): aPrime.delete(n)
            default: break // a retained or deleted what b deleted: nothing of it is left
            }
            if x > n {
                if case .retain = l! { l = .retain(x - n) } else { l = .delete(x - n) }
            } else {
                i += 1; l = i < left.count ? left[i] : nil
            }
            if y > n {
                if case .retain = r! { r = .retain(y - n) } else { r = .delete(y - n) }
            } else {
                j += 1; r = j < right.count ? right[j] : nil
            }
        }
    }
}
