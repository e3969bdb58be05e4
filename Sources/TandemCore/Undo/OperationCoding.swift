/// A Codable form of TextOperation for snapshots and journals: the base length and the
/// splices.
public struct OperationCoding: Codable, Sendable, Hashable {
    public var baseLength: Int
    public var positions: [Int]
    public var deleted: [Int]
    public var inserted: [String]

    public init(_ op: TextOperation) {
        baseLength = op.baseLength
        let splices = op.splices
        positions = splices.map(\.position)
        deleted = splices.map(\.deleted)
        inserted = splices.map(\.inserted)
    }

    /// The operation's components without rebuilding it; false (nothing called) when the
    /// arrays do not line up.
    public func forEachComponent(_ body: (TextOperation.Component) -> Void) -> Bool {
        guard positions.count == deleted.count, deleted.count == inserted.count else { return false }
        var walk = TextOperation.ComponentWalk()
        for i in positions.indices { walk.splice(.init(position: positions[i], deleted: deleted[i], inserted: inserted[i]), body) }
        walk.end(baseLength: baseLength, body)
        return true
    }

    public func operation() throws(OperationError) -> TextOperation {
        guard positions.count == deleted.count, deleted.count == inserted.count else {
            throw .invalidComponent("splice arrays differ in length")
        }
        var splices: [TextOperation.Splice] = []
        for i in positions.indices {
            splices.append(.init(position: positions[i], deleted: deleted[i], inserted: inserted[i]))
        }
        return try TextOperation(splices: splices, baseLength: baseLength)
    }
}
