/// A snapshot as bytes: its columns (the change log's, the undo groups, the text) copied out
/// whole in little-endian order instead of going through an encoder value by value. A busy
/// document's snapshot holds tens of thousands of changes and groups: as bytes it is cheap
/// enough that a document can be snapshot while it is being edited instead of waiting for a
/// quiet moment (see docs/performance.md).
///
/// Layout: the magic `TDS` and a format version, then every field in declaration order.
/// Integers are 8-byte little-endian (Int32 columns 4), a Bool one byte, a String or an array
/// its count and then its bytes, an optional a presence byte and then the value.
extension DocumentSnapshot {
    /// Version 2 adds, after version 1's fields, the undo groups' ids, each mapped inverse's
    /// lost units and the log's undo records. Version 3 stores each change's undo group and
    /// undo context as two columns where versions 1 and 2 had one `owner` column (a group id,
    /// or -(context + 1) for a change with no group). Version 4 appends, after everything
    /// else, each context's own registration-disabled count (a column, one per context), the
    /// discarded steps of the document's count and of each session's (in the order the counts
    /// are written), and then the unit identities: the text's, the next new one, the log's
    /// unit columns and each mapped inverse's (see `UnitRuns`). Version 5 appends who inserted
    /// each identity (`Authorship`: a presence byte, then its columns and names). Versions 1
    /// (ids = first revisions), 2, 3 and 4 still load.
    static let magic: [UInt8] = [0x54, 0x44, 0x53, 0x05]

    /// The format version of `bytes`, nil when they are not a binary snapshot of any version.
    static func version(_ bytes: [UInt8]) -> UInt8? {
        guard bytes.count >= magic.count, bytes.starts(with: magic.dropLast()), (1...magic[3]).contains(bytes[3]) else { return nil }
        return bytes[3]
    }

    /// Whether `bytes` are a snapshot in this form (and not the older JSON one).
    public static func isBinary(_ bytes: [UInt8]) -> Bool { version(bytes) != nil }

    /// Whether `bytes` are a binary snapshot of the version `binary()` writes (an older one
    /// loads, and is written again in this version).
    public static func isCurrentBinary(_ bytes: [UInt8]) -> Bool { bytes.starts(with: magic) }

    public func binary() -> [UInt8] { binary(version: Self.magic[3]) }

    /// The bytes of format `version` (3 or the current one): the tests of older formats start
    /// from the layout an older server wrote.
    func binary(version: UInt8) -> [UInt8] {
        var w = SnapshotWriter()
        w.bytes.reserveCapacity(64 + text.utf8.count + log.kind.count * 40 + undo.groups.count * UndoGroup.packedSize)
        w.bytes += Self.magic.dropLast() + [version]
        w.int(revision); w.int(changeCount); w.bool(isEditingDisabled)
        w.string(text)

        w.int(log.trimmed); w.int(log.startLength)
        w.column(log.spliceEnd); w.column(log.textStart); w.column(log.group); w.column(log.context); w.column(log.kind)
        w.column(log.time.map(\.bitPattern)); w.column(log.lengthAfter); w.column(log.splicePosition)
        w.column(log.spliceDeleted); w.column(log.spliceInserted); w.column(log.text)

        w.int(undo.groups.count)
        for g in undo.groups { g.pack(into: &w.bytes) }
        w.int(undo.contexts.count)
        for c in undo.contexts { w.context(c) }
        w.int(undo.names.count)
        for n in undo.names { w.string(n) }
        w.int(undo.mapped.count)
        for m in undo.mapped {
            w.int32(m.group); w.operation(m.inverse); w.int(m.validAt)
            w.optional(m.below) { $0.operation($1) }
        }
        w.int(undo.documentLevels); w.int(undo.registrationDisabled); w.int(undo.liveUndoCount)
        w.bool(undo.groupsByEvent)
        w.column(undo.groups.map(\.id))
        w.column(undo.mapped.map { Int64($0.lost ?? 0) })
        w.column(log.revertRevision); w.column(log.revertLost)
        for requester in log.revertRequester { w.string(requester) }
        let counts = changeCounts ?? ChangeCounts()
        w.bool(counts.document.savePointLost)
        w.int(counts.contexts.count)
        let sortedCounts = counts.contexts.sorted(by: { $0.key < $1.key })
        for (session, counter) in sortedCounts {
            w.string(session); w.int(counter.count); w.bool(counter.savePointLost)
        }
        guard version >= 4 else { return w.bytes }
        w.column(undo.contexts.map { Int64($0.registrationDisabled) })
        w.int(counts.document.discarded)
        for (_, counter) in sortedCounts { w.int(counter.discarded) }
        w.units(units ?? .unknown(text.utf16.count)); w.fixed(nextUnit ?? 1)
        w.column(log.unitEnd); w.column(log.unitRuns)
        for m in undo.mapped {
            w.units(m.inserted ?? UnitRuns()); w.units(m.lostUnits ?? UnitRuns()); w.units(m.carried ?? UnitRuns())
            w.optional(m.belowUnits) { $0.units($1.inserted); $0.units($1.deleted) }
        }
        guard version >= 5 else { return w.bytes }
        w.optional(authorship) { w, a in
            w.column(a.firsts); w.column(a.authors)
            w.int(a.names.count)
            for name in a.names { w.string(name) }
        }
        return w.bytes
    }

    /// Reads `binary()`'s bytes; throws on anything else, never reading past the end.
    public init(binary bytes: [UInt8]) throws(SnapshotFormatError) {
        var r = SnapshotReader(bytes: bytes)
        guard let version = Self.version(bytes) else { throw SnapshotFormatError(offset: 0, "not a binary snapshot") }
        r.offset = Self.magic.count
        revision = try r.int(); changeCount = try r.int(); isEditingDisabled = try r.bool()
        text = try r.string()

        var log = ChangeLog.State()
        log.trimmed = try r.int(); log.startLength = try r.int()
        log.spliceEnd = try r.column(); log.textStart = try r.column()
        // Split once the groups are read: a grouped change's context is its group's.
        var owner: [Int32]?
        if version >= 3 {
            log.group = try r.column(); log.context = try r.column()
        } else {
            owner = try r.column()
        }
        log.kind = try r.column()
        log.time = try r.column(UInt64.self).map(Double.init(bitPattern:)); log.lengthAfter = try r.column()
        log.splicePosition = try r.column(); log.spliceDeleted = try r.column(); log.spliceInserted = try r.column()
        log.text = try r.column()

        let packed = try r.take(try r.count(atLeast: UndoGroup.packedSize) * UndoGroup.packedSize, "the undo groups")
        var groups = stride(from: packed.lowerBound, to: packed.upperBound, by: UndoGroup.packedSize).map { UndoGroup.packed(bytes, at: $0) }
        if let owner, !log.splitOwners(owner, groups: groups) {
            throw SnapshotFormatError(offset: r.offset, "a change's owner names an undo group that is not there")
        }
        var contexts: [UndoContext] = []
        for _ in 0..<(try r.count(atLeast: 1)) { contexts.append(try r.context()) }
        var names: [String] = []
        for _ in 0..<(try r.count(atLeast: 8)) { names.append(try r.string()) }
        var mapped: [UndoState.Mapped] = []
        for _ in 0..<(try r.count(atLeast: 1)) {
            mapped.append(.init(group: try r.int32(), inverse: try r.operation(), validAt: try r.int(),
                                below: try r.optional { (r: inout SnapshotReader) throws(SnapshotFormatError) in try r.operation() }))
        }
        let documentLevels = try r.int(), registrationDisabled = try r.int()
        let liveUndoCount = try r.int(), groupsByEvent = try r.bool()
        if version >= 2 {
            let ids: [Int32] = try r.column()
            let lost: [Int64] = try r.column()
            guard ids.count == groups.count, lost.count == mapped.count else {
                throw SnapshotFormatError(offset: r.offset, "the group ids or lost units do not match their groups")
            }
            for i in groups.indices { groups[i].id = ids[i] }
            for i in mapped.indices { mapped[i].lost = Int(lost[i]) }
            log.revertRevision = try r.column(); log.revertLost = try r.column()
            for _ in log.revertRevision.indices { log.revertRequester.append(try r.string()) }
            var counts = ChangeCounts()
            counts.document = ChangeCounter(count: changeCount, savePointLost: try r.bool())
            var previous: String?
            var order: [String] = []
            for _ in 0..<(try r.count(atLeast: 17)) {
                let session = try r.string()
                // Written in ascending order, each once: any other order would load, and be
                // written back as other bytes (or one session's count lost to another's).
                if let previous, session <= previous {
                    throw SnapshotFormatError(offset: r.offset, "the sessions' change counts are not in ascending order")
                }
                previous = session
                order.append(session)
                counts.contexts[session] = ChangeCounter(count: try r.int(), savePointLost: try r.bool())
            }
            if version >= 4 {
                let disabled: [Int64] = try r.column()
                guard disabled.count == contexts.count, disabled.allSatisfy({ $0 >= 0 }) else {
                    throw SnapshotFormatError(offset: r.offset, "the registration counts do not match the contexts")
                }
                for i in contexts.indices { contexts[i].registrationDisabled = Int(disabled[i]) }
                counts.document.discarded = try r.int()
                for session in order { counts.contexts[session]!.discarded = try r.int() }
            }
            changeCounts = counts
        }
        if version >= 4 {
            units = try r.units(); nextUnit = try r.fixed(Int64.self)
            log.unitEnd = try r.column(); log.unitRuns = try r.column()
            for i in mapped.indices {
                mapped[i].inserted = try r.units(); mapped[i].lostUnits = try r.units(); mapped[i].carried = try r.units()
                mapped[i].belowUnits = try r.optional { (r: inout SnapshotReader) throws(SnapshotFormatError) in
                    OperationUnits(inserted: try r.units(), deleted: try r.units())
                }
            }
        }
        if version >= 5 {
            authorship = try r.optional { (r: inout SnapshotReader) throws(SnapshotFormatError) in
                let firsts: [Int64] = try r.column(), authors: [Int32] = try r.column()
                var names: [String] = []
                for _ in 0..<(try r.count(atLeast: 8)) { names.append(try r.string()) }
                guard let marks = Authorship(firsts: firsts, authors: authors, names: names) else {
                    throw SnapshotFormatError(offset: r.offset, "the authorship's marks do not line up")
                }
                return marks
            }
        }
        self.log = log
        undo = UndoState(groups: groups, contexts: contexts, names: names, mapped: mapped,
                         documentLevels: documentLevels, registrationDisabled: registrationDisabled,
                         liveUndoCount: liveUndoCount, groupsByEvent: groupsByEvent)
        guard r.offset == bytes.count else { throw SnapshotFormatError(offset: r.offset, "bytes after the end") }
    }
}

public struct SnapshotFormatError: Error, CustomStringConvertible {
    public var offset: Int
    public var reason: String
    init(offset: Int, _ reason: String) {
        self.offset = offset
        self.reason = reason
    }
    public var description: String { "damaged snapshot at byte \(offset): \(reason)" }
}

private struct SnapshotWriter {
    var bytes: [UInt8] = []

    mutating func int(_ v: Int) { fixed(Int64(v)) }
    mutating func int32(_ v: Int32) { fixed(v) }
    mutating func bool(_ v: Bool) { bytes.append(v ? 1 : 0) }

    mutating func fixed<T: FixedWidthInteger>(_ v: T) { PackedCoding.append(v, to: &bytes) }

    mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { utf8 in
            int(utf8.count)
            bytes += utf8
        }
    }

    /// Count, then the elements' bytes as they lie in memory (converted where the machine is
    /// big-endian, which Swift on Linux never is).
    mutating func column<T: FixedWidthInteger>(_ values: [T]) {
        int(values.count)
        #if _endian(little)
        values.withUnsafeBytes { bytes += $0 }
        #else
        for v in values { fixed(v) }
        #endif
    }

    mutating func optional<T>(_ value: T?, _ body: (inout SnapshotWriter, T) -> Void) {
        bool(value != nil)
        if let value { body(&self, value) }
    }

    /// Built by `OperationCoding.init(_:)`, whose three arrays always line up.
    mutating func operation(_ op: OperationCoding) {
        int(op.baseLength)
        int(op.positions.count)
        for (p, (d, i)) in zip(op.positions, zip(op.deleted, op.inserted)) {
            int(p); int(d); string(i)
        }
    }

    mutating func units(_ u: UnitRuns) {
        column(u.runs.map(\.count)); column(u.runs.map(\.first))
    }

    mutating func context(_ c: UndoContext) {
        optional(c.session) { $0.string($1) }
        column(c.undo); int(c.undoBottom); column(c.redo)
        int(c.groupingLevel); int32(c.openGroup); int32(c.openName); bool(c.openNamedOutside)
        optional(c.openDiscardable) { $0.bool($1) }
        optional(c.nestedStarts) { $0.column($1) }
        optional(c.nestedTail) { $0.int32($1) }
        int(c.levels)
        optional(c.typing) { w, t in
            w.int32(t.group); w.bool(t.deleting); w.int(t.start); w.int(t.caret)
            w.fixed(t.time.bitPattern); w.int(t.revision)
        }
    }
}

private struct SnapshotReader {
    let bytes: [UInt8]
    var offset = 0

    mutating func take(_ n: Int, _ what: String) throws(SnapshotFormatError) -> Range<Int> {
        guard n >= 0, n <= bytes.count - offset else { throw SnapshotFormatError(offset: offset, "\(what) runs past the end") }
        defer { offset += n }
        return offset..<offset + n
    }

    mutating func fixed<T: FixedWidthInteger>(_: T.Type) throws(SnapshotFormatError) -> T {
        PackedCoding.read(T.self, bytes, at: try take(MemoryLayout<T>.size, "a number").lowerBound)
    }

    mutating func int() throws(SnapshotFormatError) -> Int { Int(try fixed(Int64.self)) }
    mutating func int32() throws(SnapshotFormatError) -> Int32 { try fixed(Int32.self) }
    mutating func byte() throws(SnapshotFormatError) -> UInt8 { bytes[try take(1, "a byte").lowerBound] }

    mutating func bool() throws(SnapshotFormatError) -> Bool {
        switch try byte() {
        case 0: return false
        case 1: return true
        default: throw SnapshotFormatError(offset: offset - 1, "not a Bool")
        }
    }

    /// A count of items that take at least `size` bytes each: one larger than the bytes left
    /// could hold is damage, caught before anything is allocated for it.
    mutating func count(atLeast size: Int) throws(SnapshotFormatError) -> Int {
        let n = try int()
        guard n >= 0, n <= (bytes.count - offset) / size else { throw SnapshotFormatError(offset: offset - 8, "a count of \(n) is more than the bytes left") }
        return n
    }

    /// Valid UTF-8 or damage: decoded leniently, a damaged string would load with replacement
    /// characters in it (and, for the text, another length than its log says).
    mutating func string() throws(SnapshotFormatError) -> String {
        let range = try take(try count(atLeast: 1), "a string")
        let s = bytes.withUnsafeBufferPointer { String(validating: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
        guard let s else { throw SnapshotFormatError(offset: range.lowerBound, "a string is not UTF-8") }
        return s
    }

    mutating func column<T: FixedWidthInteger>(_: T.Type = T.self) throws(SnapshotFormatError) -> [T] {
        let n = try count(atLeast: MemoryLayout<T>.size)
        let range = try take(n * MemoryLayout<T>.size, "a column")
        #if _endian(little)
        return [T](unsafeUninitializedCapacity: n) { buffer, initialized in
            bytes.withUnsafeBytes { source in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(rebasing: source[range]))
            }
            initialized = n
        }
        #else
        var values: [T] = []
        values.reserveCapacity(n)
        var r = SnapshotReader(bytes: bytes, offset: range.lowerBound)
        for _ in 0..<n { values.append(try r.fixed(T.self)) }
        return values
        #endif
    }

    mutating func optional<T>(_ body: (inout SnapshotReader) throws(SnapshotFormatError) -> T) throws(SnapshotFormatError) -> T? {
        try bool() ? try body(&self) : nil
    }

    mutating func operation() throws(SnapshotFormatError) -> OperationCoding {
        let baseLength = try int()
        let n = try count(atLeast: 24)
        var op = OperationCoding(TextOperation(normalized: [], baseLength: baseLength))
        for _ in 0..<n {
            op.positions.append(try int())
            op.deleted.append(try int())
            op.inserted.append(try string())
        }
        return op
    }

    mutating func units() throws(SnapshotFormatError) -> UnitRuns {
        let counts: [Int32] = try column(), firsts: [Int64] = try column()
        guard UnitRuns.valid(counts: counts, firsts: firsts) else {
            throw SnapshotFormatError(offset: offset, "unit runs that do not line up")
        }
        return UnitRuns(zip(counts, firsts).map { UnitRuns.Run(count: $0, first: $1) })
    }

    mutating func context() throws(SnapshotFormatError) -> UndoContext {
        var c = UndoContext(session: try optional { (r: inout SnapshotReader) throws(SnapshotFormatError) in try r.string() })
        c.undo = try column(); c.undoBottom = try int(); c.redo = try column()
        c.groupingLevel = try int(); c.openGroup = try int32(); c.openName = try int32(); c.openNamedOutside = try bool()
        c.openDiscardable = try optional { (r: inout SnapshotReader) throws(SnapshotFormatError) in try r.bool() }
        c.nestedStarts = try optional { (r: inout SnapshotReader) throws(SnapshotFormatError) in try r.column(Int32.self) }
        c.nestedTail = try optional { (r: inout SnapshotReader) throws(SnapshotFormatError) in try r.int32() }
        c.levels = try int()
        c.typing = try optional { (r: inout SnapshotReader) throws(SnapshotFormatError) in
            TypingRun(group: try r.int32(), deleting: try r.bool(), start: try r.int(), caret: try r.int(),
                      time: Double(bitPattern: try r.fixed(UInt64.self)), revision: try r.int())
        }
        return c
    }
}
