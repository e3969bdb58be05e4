extension TextOperation {
    /// Transforms two concurrent operations on the same base document into `(a', b')` such
    /// that applying `a` then `b'` gives the same text as applying `b` then `a'` (TP1).
    ///
    /// Tie rule: when both insert at the same position, `a`'s text ends up first.
    public static func transform(_ a: TextOperation, _ b: TextOperation) throws(OperationError) -> (TextOperation, TextOperation) {
        guard a.baseLength == b.baseLength else {
            throw .lengthMismatch(expected: a.baseLength, actual: b.baseLength)
        }
        if a.isIdentity { return (.identity(length: b.targetLength), b) }
        if b.isIdentity { return (a, .identity(length: a.targetLength)) }

        let left = a.components
        let right = b.components
        var i = 0, j = 0
        var leftCurrent = left.first, rightCurrent = right.first
        var aPrime = OperationBuilder(), bPrime = OperationBuilder()

        func remainder(_ component: TextOperation.Component, minus n: Int) -> TextOperation.Component? {
            switch component {
            case .retain(let count): count > n ? .retain(count - n) : nil
            case .delete(let count): count > n ? .delete(count - n) : nil
            case .insert: nil
            }
        }

        while true {
            switch (leftCurrent, rightCurrent) {
            case (nil, nil):
                return (aPrime.build(), bPrime.build())
            case (.insert(let text)?, _):
                aPrime.insert(text)
                bPrime.retain(text.utf16.count)
                i += 1; leftCurrent = i < left.count ? left[i] : nil
            case (_, .insert(let text)?):
                aPrime.retain(text.utf16.count)
                bPrime.insert(text)
                j += 1; rightCurrent = j < right.count ? right[j] : nil
            case (nil, _), (_, nil):
                throw .lengthMismatch(expected: a.baseLength, actual: b.baseLength)
            case let (l?, r?):
                let n: Int
                switch (l, r) {
                case let (.retain(x), .retain(y)):
                    n = min(x, y); aPrime.retain(n); bPrime.retain(n)
                case let (.delete(x), .delete(y)):
                    n = min(x, y)
                case let (.delete(x), .retain(y)):
                    n = min(x, y); aPrime.delete(n)
                case let (.retain(x), .delete(y)):
                    n = min(x, y); bPrime.delete(n)
                default:
                    n = 0 // inserts were handled above
                }
                leftCurrent = remainder(l, minus: n)
                if leftCurrent == nil { i += 1; leftCurrent = i < left.count ? left[i] : nil }
                rightCurrent = remainder(r, minus: n)
                if rightCurrent == nil { j += 1; rightCurrent = j < right.count ? right[j] : nil }
            }
        }
    }

    /// This operation rewritten to apply after `other` (both on the same base). With
    /// `priority`, this operation's text goes first where both insert at one position.
    public func transformed(against other: TextOperation, priority: Bool) throws(OperationError) -> TextOperation {
        priority ? try Self.transform(self, other).0 : try Self.transform(other, self).1
    }

    /// Same as `transformed(against:priority:)`, under the name the other layers were told.
    public func transform(against other: TextOperation, priority: Bool) throws(OperationError) -> TextOperation {
        try transformed(against: other, priority: priority)
    }

    /// Maps an offset in the base document to the matching offset in the result, for
    /// cursors and selections.
    ///
    /// Text inserted exactly at `position` pushes it to the end of that text, as a caret
    /// moves when one types; with `stickToInsertsBefore`, it stays before such text
    /// instead. An offset inside deleted or replaced text moves to the end of the
    /// replacement. Offsets outside `0...baseLength` are clamped first.
    public func transformPosition(_ position: Int, stickToInsertsBefore: Bool = false) -> Int {
        let position = min(max(position, 0), baseLength)
        var delta = 0
        var result: Int?
        forEachSplice { splice in
            guard result == nil, position >= splice.position else {
                return
            }
            let inserted = splice.inserted.utf16.count
            if position == splice.position && stickToInsertsBefore {
                result = position + delta
            } else if position <= splice.position + splice.deleted {
                result = splice.position + delta + inserted
            } else {
                delta += inserted - splice.deleted
            }
        }
        return result ?? position + delta
    }
}
