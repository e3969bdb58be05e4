/// Everything a document is, as one Codable value: the text, the retained change log and
/// the whole undo state (groups, stacks, mapped inverses, open groups, typing runs).
/// Selections are not included: they belong to live sessions.
public struct DocumentSnapshot: Sendable, Codable {
    public var text: String
    public var revision: Int
    /// The document's change count (UIDocument's).
    public var changeCount: Int
    /// Every scope's counts; nil in snapshots written before they were kept (the document's
    /// count was then all there was).
    var changeCounts: ChangeCounts?
    public var isEditingDisabled: Bool
    var log: ChangeLog.State
    var undo: UndoState
    /// The identity of every unit of the text and the next new one; nil in snapshots written
    /// before identities were kept (the text's units are then of unknown identity).
    var units: UnitRuns?
    var nextUnit: Int64?
    /// Who inserted each identity; nil in snapshots written before authorship was kept (the
    /// text before is then of unknown author).
    var authorship: Authorship?

    private enum CodingKeys: String, CodingKey {
        case text, revision, changeCount, changeCounts, isEditingDisabled, log, undo, units, nextUnit, authorship
    }

    /// The log's `owner` column, which snapshots written before the `group` and `context`
    /// columns hold instead of them.
    private struct OwnerColumn: Decodable {
        var owner: [Int32]?

        private enum CodingKeys: String, CodingKey { case owner }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            owner = c.contains(.owner) ? try PackedCoding.decode(Int32.self, c, .owner) : nil
        }
    }
}

extension DocumentSnapshot {
    /// As synthesized, except that a log with the older `owner` column is split into `group`
    /// and `context` here, where the undo groups a grouped change's context comes from are.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        text = try c.decode(String.self, forKey: .text)
        revision = try c.decode(Int.self, forKey: .revision)
        changeCount = try c.decode(Int.self, forKey: .changeCount)
        changeCounts = try c.decodeIfPresent(ChangeCounts.self, forKey: .changeCounts)
        isEditingDisabled = try c.decode(Bool.self, forKey: .isEditingDisabled)
        undo = try c.decode(UndoState.self, forKey: .undo)
        log = try c.decode(ChangeLog.State.self, forKey: .log)
        units = try c.decodeIfPresent(UnitRuns.self, forKey: .units)
        nextUnit = try c.decodeIfPresent(Int64.self, forKey: .nextUnit)
        authorship = try c.decodeIfPresent(Authorship.self, forKey: .authorship)
        if let owner = try c.decode(OwnerColumn.self, forKey: .log).owner, !log.splitOwners(owner, groups: undo.groups) {
            throw DecodingError.dataCorruptedError(forKey: .log, in: c, debugDescription: "a change's owner names an undo group that is not there")
        }
    }
}

struct UndoState: Sendable, Codable {
    struct Mapped: Sendable, Codable {
        var group: Int32
        var inverse: OperationCoding
        var validAt: Int
        var below: OperationCoding?
        /// Absent (0) in snapshots written before partial undo was tracked.
        var lost: Int?
        /// Absent in snapshots written before unit identities were kept.
        var inserted: UnitRuns?
        var belowUnits: OperationUnits?
        var lostUnits: UnitRuns?
        var carried: UnitRuns?
    }

    var groups: [UndoGroup]
    var contexts: [UndoContext]
    var names: [String]
    var mapped: [Mapped]
    var documentLevels: Int
    var registrationDisabled: Int
    var liveUndoCount: Int
    var groupsByEvent: Bool
}

extension UndoState {
    private enum CodingKeys: String, CodingKey {
        case groups, names, mapped, documentLevels, registrationDisabled, liveUndoCount, groupsByEvent
        case groupIDs
        /// Stored under the name undo contexts had before the code called them so.
        case contexts = "chains"
    }

    /// A group's id is its index, so every group since the last renumbering stays (up to the
    /// retained log's worth, see `compactGroups`), and `groups` is packed: 17 bytes a group
    /// (context, first, last, name, flags) instead of a JSON object each.
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let packed = try? c.decode(String.self, forKey: .groups) {
            let bytes = try PackedCoding.bytes(of: packed, c, .groups)
            guard bytes.count % UndoGroup.packedSize == 0 else { throw PackedCoding.corrupt(c, .groups) }
            groups = stride(from: 0, to: bytes.count, by: UndoGroup.packedSize).map { UndoGroup.packed(bytes, at: $0) }
        } else {
            groups = try c.decode([UndoGroup].self, forKey: .groups)
        }
        // Packed groups carry no id: it comes in a column of its own, absent from snapshots
        // written before groups had ids (each then keeps its first revision).
        if c.contains(.groupIDs) {
            let ids = try PackedCoding.decode(Int32.self, c, .groupIDs)
            guard ids.count == groups.count else { throw PackedCoding.corrupt(c, .groupIDs) }
            for i in groups.indices { groups[i].id = ids[i] }
        }
        contexts = try c.decode([UndoContext].self, forKey: .contexts)
        names = try c.decode([String].self, forKey: .names)
        mapped = try c.decode([Mapped].self, forKey: .mapped)
        documentLevels = try c.decode(Int.self, forKey: .documentLevels)
        registrationDisabled = try c.decode(Int.self, forKey: .registrationDisabled)
        liveUndoCount = try c.decode(Int.self, forKey: .liveUndoCount)
        groupsByEvent = try c.decode(Bool.self, forKey: .groupsByEvent)
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(groups.count * UndoGroup.packedSize)
        for g in groups { g.pack(into: &bytes) }
        try c.encode(Base64.encode(bytes), forKey: .groups)
        try c.encode(PackedCoding.encode(groups.map(\.id)), forKey: .groupIDs)
        try c.encode(contexts, forKey: .contexts)
        try c.encode(names, forKey: .names)
        try c.encode(mapped, forKey: .mapped)
        try c.encode(documentLevels, forKey: .documentLevels)
        try c.encode(registrationDisabled, forKey: .registrationDisabled)
        try c.encode(liveUndoCount, forKey: .liveUndoCount)
        try c.encode(groupsByEvent, forKey: .groupsByEvent)
    }
}

extension UndoGroup {
    /// Packed as context, first, last and name (little-endian Int32s), then flags: the JSON
    /// snapshot's base64 string and the binary snapshot hold groups alike.
    static let packedSize = 17

    func pack(into bytes: inout [UInt8]) {
        PackedCoding.append(context, to: &bytes)
        PackedCoding.append(first, to: &bytes)
        PackedCoding.append(last, to: &bytes)
        PackedCoding.append(name, to: &bytes)
        bytes.append(flags)
    }

    /// The group packed at `bytes[i..<i + packedSize]`.
    static func packed(_ bytes: [UInt8], at i: Int) -> UndoGroup {
        UndoGroup(context: PackedCoding.read(Int32.self, bytes, at: i), first: PackedCoding.read(Int32.self, bytes, at: i + 4),
                  last: PackedCoding.read(Int32.self, bytes, at: i + 8), name: PackedCoding.read(Int32.self, bytes, at: i + 12),
                  flags: bytes[i + 16])
    }
}

extension Document {
    public func snapshot() -> DocumentSnapshot {
        let um = undoManager
        let mapped = um.mapped.sorted { $0.key < $1.key }.map {
            UndoState.Mapped(group: $0.key, inverse: OperationCoding($0.value.inverse), validAt: $0.value.validAt,
                             below: $0.value.below.map(OperationCoding.init), lost: $0.value.lost,
                             inserted: $0.value.inserted, belowUnits: $0.value.belowUnits, lostUnits: $0.value.lostUnits,
                             carried: $0.value.carried)
        }
        return DocumentSnapshot(
            text: text, revision: revision, changeCount: changeCount, changeCounts: changeCounts, isEditingDisabled: isEditingDisabled,
            log: log.state,
            undo: UndoState(groups: um.groups, contexts: um.contexts, names: um.names, mapped: mapped,
                            documentLevels: um.documentLevels, registrationDisabled: um.registrationDisabled,
                            liveUndoCount: um.liveUndoCount, groupsByEvent: um.groupsByEvent),
            units: units.all, nextUnit: nextUnit, authorship: authorship)
    }

    /// Rebuilds a document from a snapshot; `configuration.levelsOfUndo` is ignored in
    /// favour of the snapshot's.
    public convenience init(snapshot: DocumentSnapshot, configuration: Configuration = .init()) throws(DocumentError) {
        guard snapshot.log.columnsLineUp else { throw .invalidOperation(.invalidComponent("the snapshot's change log is damaged")) }
        self.init(text: snapshot.text, configuration: configuration)
        log.state = snapshot.log
        if log.state.unitEnd.isEmpty && !log.state.kind.isEmpty { log.state.fillUnknownUnits() }
        guard log.state.unitsLineUp else { throw .invalidOperation(.invalidComponent("the snapshot's change log is damaged")) }
        if let known = snapshot.units, let next = snapshot.nextUnit {
            guard known.count == length, next >= 1, next <= UnitRuns.maxIdentity else { throw .invalidOperation(.invalidComponent("the snapshot's unit identities do not match its text")) }
            units = TextUnits(known)
            nextUnit = next
        } else {
            units = TextUnits(.unknown(length))
        }
        authorship = snapshot.authorship ?? Authorship()
        let um = undoManager
        um.groups = snapshot.undo.groups
        um.contexts = snapshot.undo.contexts
        um.contextIndex = [:]
        for (i, context) in um.contexts.enumerated() { if let s = context.session { um.contextIndex[s] = i } }
        um.names = snapshot.undo.names
        um.nameIndex = [:]
        for (i, name) in um.names.enumerated() { um.nameIndex[name] = Int32(i) }
        um.mapped = [:]
        for m in snapshot.undo.mapped {
            do {
                let inverse = try m.inverse.operation()
                let below = try m.below?.operation()
                var restored = MappedInverse(inverse: inverse, validAt: m.validAt, below: below, lost: m.lost ?? 0)
                // Identities from an older snapshot are unknown: nothing is matched through them.
                let inserted = m.inserted ?? .unknown(inverse.insertedCount)
                restored.inserted = inserted.count == inverse.insertedCount ? inserted : .unknown(inverse.insertedCount)
                restored.belowUnits = below.map { b in m.belowUnits ?? .unknown(b) }
                restored.lostUnits = m.lostUnits ?? UnitRuns()
                restored.carried = m.carried ?? UnitRuns()
                um.mapped[m.group] = restored
            } catch { throw .invalidOperation(error) }
        }
        um.documentLevels = snapshot.undo.documentLevels
        um.registrationDisabled = snapshot.undo.registrationDisabled
        um.liveUndoCount = snapshot.undo.liveUndoCount
        um.groupsByEvent = snapshot.undo.groupsByEvent
        changeCounts = snapshot.changeCounts ?? {
            var counts = ChangeCounts()
            counts.document.count = snapshot.changeCount
            return counts
        }()
        isEditingDisabled = snapshot.isEditingDisabled
        guard log.revision == snapshot.revision, log.length(at: log.revision) == length else {
            throw .invalidOperation(.lengthMismatch(expected: log.length(at: log.revision), actual: length))
        }
    }
}

extension ChangeLog.State {
    /// Every change has each of its columns, and its splices and their text lie inside theirs:
    /// a damaged snapshot that still decodes is refused here, not by an index out of range.
    var columnsLineUp: Bool {
        let n = kind.count, m = splicePosition.count
        guard trimmed >= 0, startLength >= 0, trimmed <= Int.max - n,
              group.count == n, context.count == n, time.count == n, lengthAfter.count == n, spliceEnd.count == n, textStart.count == n,
              spliceDeleted.count == m, spliceInserted.count == m,
              revertRequester.count == revertRevision.count, revertLost.count == revertRevision.count else { return false }
        var spliceStart = 0
        for i in 0..<n {
            let end = Int(spliceEnd[i])
            guard lengthAfter[i] >= 0, spliceStart <= end, end <= m else { return false }
            var textEnd = Int(textStart[i])
            for k in spliceStart..<end {
                guard splicePosition[k] >= 0, spliceDeleted[k] >= 0, spliceInserted[k] >= 0 else { return false }
                textEnd += Int(spliceDeleted[k]) + Int(spliceInserted[k])
            }
            guard textEnd <= text.count else { return false }
            spliceStart = end
        }
        return true
    }
}
