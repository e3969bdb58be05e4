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

// MARK: - Transforming through shapes

extension TextOperation {
    /// What `transform(a, b).0` needs of `b`: where it deletes and how much it inserts, never
    /// the inserted text itself. A stale edit is transformed through every logged change
    /// since its base; reading the shapes straight from the log's arrays spares decoding each
    /// change's text into a `String`, and allocates nothing.
    struct Shape: SpliceList {
        /// Splices in the base, ascending, insert before delete (as `Splice`).
        var positions: ArraySlice<Int32> = []
        var deleted: ArraySlice<Int32> = []
        var inserted: ArraySlice<Int32> = []
        var baseLength = 0

        var spliceCount: Int { positions.count }

        func splice(_ k: Int) -> (position: Int, deleted: Int, inserted: Int) {
            (Int(positions[positions.startIndex + k]), Int(deleted[deleted.startIndex + k]),
             Int(inserted[inserted.startIndex + k]))
        }

        mutating func append(position: Int, deleted d: Int, inserted n: Int) {
            positions.append(Int32(position)); deleted.append(Int32(d)); inserted.append(Int32(n))
        }
    }

    /// Exactly `try TextOperation.transform(self, b).0` for a `b` of this shape: the same walk
    /// over the same components, with this operation's text first where both insert at one
    /// position.
    func transformed(through b: Shape) throws(OperationError) -> TextOperation {
        guard baseLength == b.baseLength else {
            throw .lengthMismatch(expected: baseLength, actual: b.baseLength)
        }
        if b.spliceCount == 0 { return self }
        var left = PartCursor(list: self), right = PartCursor(list: b)
        var l = left.next(), r = right.next()
        var aPrime = OperationBuilder()
        while true {
            switch (l, r) {
            case (nil, nil):
                return aPrime.build()
            case (let lp?, _) where lp.kind == .insert:
                aPrime.insert(insertedText(lp.splice))
                l = left.next()
            case (_, let rp?) where rp.kind == .insert:
                aPrime.retain(rp.count)
                r = right.next()
            case (var lp?, var rp?):
                let n = min(lp.count, rp.count)
                switch (lp.kind, rp.kind) {
                case (.retain, .retain): aPrime.retain(n)
                case (.delete, .retain): aPrime.delete(n)
                default: break // a retained or deleted what b deleted: nothing of it is left
                }
                lp.count -= n
                rp.count -= n
                l = lp.count > 0 ? lp : left.next()
                r = rp.count > 0 ? rp : right.next()
            case (nil, _), (_, nil):
                throw .lengthMismatch(expected: baseLength, actual: b.baseLength)
            }
        }
    }

    /// `transformed(through:)` in closed form for the commonest step of a stale keystroke:
    /// an insert or a delete of one splice, through a change of one splice `b` on a text of
    /// `length`. Nil where the general walk is needed (a replace; a delete the change inserts
    /// into the middle of, which leaves two pieces; several splices; lengths that do not
    /// match). An operation that changes nothing stays so, on the longer or shorter text. The same
    /// answer as the walk: this operation's text first where both insert at one position.
    func transformed(throughSplice b: (position: Int, deleted: Int, inserted: Int), length: Int) -> TextOperation? {
        guard baseLength == length else { return nil }
        let (pb, db, nb) = b
        let target = length - db + nb
        let a: Splice
        switch storage {
        case .identity: return TextOperation(normalized: [], baseLength: target)
        case .one(let one): a = one
        case .many: return nil
        }
        if a.deleted == 0 {
            let p = a.position <= pb ? a.position : (a.position <= pb + db ? pb + nb : a.position - db + nb)
            return TextOperation(one: Splice(position: p, deleted: 0, inserted: a.inserted), baseLength: target)
        }
        guard a.inserted.isEmpty else { return nil }
        let (pa, da) = (a.position, a.deleted)
        if pa < pb && pb < pa + da && nb > 0 { return nil }
        let left = da - max(0, min(pa + da, pb + db) - max(pa, pb))
        guard left > 0 else { return TextOperation(normalized: [], baseLength: target) }
        let p = pa < pb ? pa : pb + nb + max(0, pa - pb - db)
        return TextOperation(one: Splice(position: p, deleted: left, inserted: ""), baseLength: target)
    }

    private func insertedText(_ k: Int) -> String {
        switch storage {
        case .identity: ""
        case .one(let s): s.inserted
        case .many(let splices): splices[k].inserted
        }
    }
}

extension TextOperation: SpliceList {
    var spliceCount: Int {
        switch storage {
        case .identity: 0
        case .one: 1
        case .many(let splices): splices.count
        }
    }

    func splice(_ k: Int) -> (position: Int, deleted: Int, inserted: Int) {
        let s: Splice
        switch storage {
        case .identity: preconditionFailure("an identity operation has no splices")
        case .one(let one): s = one
        case .many(let splices): s = splices[k]
        }
        return (s.position, s.deleted, s.inserted.utf16.count)
    }
}

/// Normalized splices over a base of `baseLength`, as `TextOperation` keeps them.
protocol SpliceList {
    var spliceCount: Int { get }
    var baseLength: Int { get }
    func splice(_ k: Int) -> (position: Int, deleted: Int, inserted: Int)
}

/// One of the components `TextOperation.components` would list, made on demand.
struct Part {
    enum Kind { case retain, insert, delete }
    var kind: Kind
    /// UTF-16 units (an insert's length).
    var count: Int
    /// The splice it belongs to.
    var splice: Int
}

/// Walks a splice list as its components (retain, insert, delete … retain) without building
/// the array.
struct PartCursor<List: SpliceList> {
    let list: List
    private var k = 0, phase = 0, reached = 0, done = false

    init(list: List) { self.list = list }

    mutating func next() -> Part? {
        while !done {
            guard k < list.spliceCount else {
                done = true
                return list.baseLength > reached ? Part(kind: .retain, count: list.baseLength - reached, splice: k) : nil
            }
            let s = list.splice(k)
            switch phase {
            case 0:
                phase = 1
                if s.position > reached {
                    defer { reached = s.position }
                    return Part(kind: .retain, count: s.position - reached, splice: k)
                }
            case 1:
                phase = 2
                if s.inserted > 0 { return Part(kind: .insert, count: s.inserted, splice: k) }
            default:
                phase = 0
                k += 1
                reached = s.position + s.deleted
                if s.deleted > 0 { return Part(kind: .delete, count: s.deleted, splice: k - 1) }
            }
        }
        return nil
    }
}
