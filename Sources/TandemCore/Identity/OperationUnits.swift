/// The identities of an operation's units: the ones it inserts and the ones it deletes, each
/// in the order of the text.
///
/// The functions here walk two operations as `compose` and `transform` do, on counts alone,
/// so the identities follow the text through the undo history's algebra without the
/// operations carrying them.
struct OperationUnits: Sendable, Hashable, Codable {
    var inserted = UnitRuns()
    var deleted = UnitRuns()

    /// The units of the operation undoing one with these units.
    var inverted: OperationUnits { OperationUnits(inserted: deleted, deleted: inserted) }

    static func unknown(_ op: TextOperation) -> OperationUnits {
        var deleted = 0
        op.forEachSplice { deleted += $0.deleted }
        return OperationUnits(inserted: .unknown(op.insertedCount), deleted: .unknown(deleted))
    }

    /// The units of `a.compose(b)`. Tracking the deleted ones is optional: an inverse only
    /// needs to know which units it puts back.
    static func compose(_ a: TextOperation, _ au: OperationUnits, _ b: TextOperation, _ bu: OperationUnits,
                        deleted: Bool = true) -> OperationUnits {
        var x = StepStream(a), y = StepStream(b)
        var ai = UnitCursor(au.inserted), ad = UnitCursor(au.deleted), bi = UnitCursor(bu.inserted), bd = UnitCursor(bu.deleted)
        var result = OperationUnits()
        while true {
            switch (x.current, y.current) {
            case (nil, nil):
                return result
            case (.delete(let n)?, _):
                if deleted { ad.take(n, into: &result.deleted) }
                x.advance()
            case (_, .insert(let n)?):
                bi.take(n, into: &result.inserted)
                y.advance()
            case (nil, _), (_, nil):
                return result   // lengths disagree: compose itself refuses these
            case (.retain(let p)?, .retain(let q)?):
                let n = min(p, q)
                x.consume(n); y.consume(n)
            case (.retain(let p)?, .delete(let q)?):
                let n = min(p, q)
                if deleted { bd.take(n, into: &result.deleted) } else { bd.skip(n) }
                x.consume(n); y.consume(n)
            case (.insert(let p)?, .retain(let q)?):
                let n = min(p, q)
                ai.take(n, into: &result.inserted)
                x.consume(n); y.consume(n)
            case (.insert(let p)?, .delete(let q)?):
                let n = min(p, q)
                ai.skip(n); bd.skip(n)
                x.consume(n); y.consume(n)
            }
        }
    }

    /// For `TextOperation.transform(a, b)`: the units both delete (as `b` knows them) and the
    /// units of b′. a′ puts back exactly what `a` does: a transform never drops an insertion.
    static func transform(_ a: TextOperation, _ b: TextOperation, _ bu: OperationUnits) -> (overlap: UnitRuns, bPrime: OperationUnits) {
        var x = StepStream(a), y = StepStream(b)
        var bd = UnitCursor(bu.deleted)
        var overlap = UnitRuns()
        var bPrime = OperationUnits(inserted: bu.inserted, deleted: UnitRuns())
        while true {
            switch (x.current, y.current) {
            case (nil, nil):
                return (overlap, bPrime)
            case (.insert?, _):
                x.advance()
            case (_, .insert?):
                y.advance()
            case (nil, _), (_, nil):
                return (overlap, bPrime)   // lengths disagree: transform itself refuses these
            case (.retain(let p)?, .retain(let q)?):
                let n = min(p, q)
                x.consume(n); y.consume(n)
            case (.delete(let p)?, .delete(let q)?):
                let n = min(p, q)
                bd.take(n, into: &overlap)
                x.consume(n); y.consume(n)
            case (.delete(let p)?, .retain(let q)?):
                let n = min(p, q)
                x.consume(n); y.consume(n)
            case (.retain(let p)?, .delete(let q)?):
                let n = min(p, q)
                bd.take(n, into: &bPrime.deleted)
                x.consume(n); y.consume(n)
            }
        }
    }

    /// Where the runs of known units `op` inserts land in its result: a run split where the
    /// op's splices split it.
    static func forEachInsertedRun(_ op: TextOperation, _ units: OperationUnits, _ body: (_ position: Int, _ run: UnitRuns.Run) -> Void) {
        var cursor = UnitCursor(units.inserted)
        var delta = 0
        op.forEachSplice { splice in
            let n = splice.inserted.utf16.count
            var piece = UnitRuns()
            cursor.take(n, into: &piece)
            var at = splice.position + delta
            for run in piece.runs {
                if run.first != 0 { body(at, run) }
                at += Int(run.count)
            }
            delta += n - splice.deleted
        }
    }
}

/// An operation's components as counts, consumed piece by piece as the other side of a walk
/// requires.
struct StepStream {
    enum Step { case retain(Int), insert(Int), delete(Int) }

    private var steps: [Step] = []
    private var index = 0
    private(set) var current: Step?

    init(_ op: TextOperation) {
        var position = 0
        op.forEachSplice { splice in
            if splice.position > position { steps.append(.retain(splice.position - position)) }
            let n = splice.inserted.utf16.count
            if n > 0 { steps.append(.insert(n)) }
            if splice.deleted > 0 { steps.append(.delete(splice.deleted)) }
            position = splice.position + splice.deleted
        }
        if op.baseLength > position { steps.append(.retain(op.baseLength - position)) }
        current = steps.first
    }

    mutating func advance() {
        index += 1
        current = index < steps.count ? steps[index] : nil
    }

    mutating func consume(_ n: Int) {
        switch current {
        case .retain(let count)? where count > n: current = .retain(count - n)
        case .delete(let count)? where count > n: current = .delete(count - n)
        case .insert(let count)? where count > n: current = .insert(count - n)
        default: advance()
        }
    }
}
