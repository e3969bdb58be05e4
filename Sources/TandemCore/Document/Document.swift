/// A text with its change log, its undo manager and its sessions' selections.
///
/// Not Sendable and not locked: the server guards each document with its own Mutex.
///
/// Its state, and its undo manager's and change log's, skips the runtime's dynamic
/// exclusivity checks (`@exclusivity(unchecked)`): a document is used by one thread at a
/// time, under that lock, the compiler's static checks still run, and the dynamic ones
/// would be paid on every access while applying a keystroke (see docs/performance.md).
public final class Document {
    public struct Configuration: Sendable, Hashable, Codable {
        /// Seconds without typing after which the next keystroke starts a new group.
        public var typingPause: Double
        /// Cap on undo groups (0 = unlimited).
        public var levelsOfUndo: Int

        public init(typingPause: Double = 1.0, levelsOfUndo: Int = 0) {
            self.typingPause = typingPause
            self.levelsOfUndo = levelsOfUndo
        }
    }

    public let configuration: Configuration
    @exclusivity(unchecked) public private(set) var rope: Rope
    public let undoManager: UndoManager
    let log: ChangeLog
    @exclusivity(unchecked) var selectionIndex: [SessionID: Int] = [:]
    @exclusivity(unchecked) var selectionSessions: [SessionID] = []
    @exclusivity(unchecked) var selectionList: [Selection] = []
    /// One-entry cache of the last session's undo context, to skip hashing on every keystroke.
    @exclusivity(unchecked) var lastSession: SessionID?
    @exclusivity(unchecked) var lastContext = 0
    /// The identity of every unit of the text (see `UnitRuns`), and the next new one.
    @exclusivity(unchecked) var units: TextUnits
    @exclusivity(unchecked) var nextUnit: Int64
    /// Who inserted each identity (see `Authorship`).
    @exclusivity(unchecked) public internal(set) var authorship = Authorship()
    /// UIDocument's counts of unsaved changes, the document's and each session context's.
    @exclusivity(unchecked) public internal(set) var changeCounts = ChangeCounts()
    /// While true every change is refused (`editingDisabled`).
    public var isEditingDisabled = false {
        didSet { log.journal?(.setEditingDisabled(isEditingDisabled)) }
    }

    /// The text it starts with is its starting point, not an undoable change; `author`
    /// wrote it (nil: unknown).
    public init(text: String = "", configuration: Configuration = .init(), author: SessionID? = nil) {
        self.configuration = configuration
        rope = Rope(text)
        units = TextUnits(UnitRuns(fresh: 1, count: rope.utf16Count))
        nextUnit = Int64(rope.utf16Count) + 1
        authorship.inserted(first: 1, count: rope.utf16Count, by: author)
        log = ChangeLog(startLength: rope.utf16Count)
        undoManager = UndoManager(log: log, typingPause: configuration.typingPause,
                                  levelsOfUndo: configuration.levelsOfUndo)
        undoManager.currentText = { [unowned self] in self.rope }
        undoManager.unitPositions = { [unowned self] in self.units.positions(of: $0) }
        undoManager.recountDiscardable = { [unowned self] c, discardable in
            self.recountDiscardable(discardable, context: self.undoManager.session(ofContext: c))
        }
    }

    public var text: String { rope.description }
    public var length: Int { rope.utf16Count }
    /// The number of changes since creation.
    public var revision: Int { log.revision }
    /// The oldest revision still in the log; `changes(since:)` and `base` need
    /// `firstAvailableRevision - 1` or later.
    public var firstAvailableRevision: Int { log.firstAvailableRevision }

    /// Receives every state-changing event, in order, for persistence: a snapshot plus the
    /// events after it rebuild the same document (see `replay`).
    public var journal: ((DocumentEvent) -> Void)? {
        get { log.journal }
        set { log.journal = newValue }
    }

    // MARK: editing

    /// Applies `op`, made on the text at `base` (default: the current revision), as
    /// `session`. Returns nil, logging and registering nothing, when it changes nothing.
    @discardableResult
    public func apply(_ op: TextOperation, base: Int? = nil, session: SessionID?,
                      options: EditOptions = .init(), time: Double) throws(DocumentError) -> Change? {
        guard !isEditingDisabled else { throw .editingDisabled }
        var op = op
        if let base, base != log.revision {
            op = try Self.rebase(op, base: base, log: log, rope: rope)
        }
        let c: Int
        if session == lastSession { c = lastContext } else {
            c = undoManager.context(for: session)
            lastSession = session
            lastContext = c
        }
        let registering = options.undoable && undoManager.registers(context: c)
        if registering && !undoManager.groupsByEvent && undoManager.contexts[c].groupingLevel == 0 {
            throw .noOpenGroup
        }
        guard let revision = try commit(op, group: ChangeLog.noGroup, context: c, kind: .edit, time: time) else { return nil }
        var group = ChangeLog.noGroup
        // UIDocument counts a change when its undo group closes, so a group counts once
        // however many changes it gathers (and one undo takes it back); a change without a
        // group can never be undone and counts on its own.
        var startsGroup = true
        var automatic = false
        if registering {
            var shape: UndoManager.EditShape?
            if case .one(let s) = op.storage {
                shape = .init(position: s.position, deleted: s.deleted, inserted: s.inserted.utf16.count)
            }
            let level = undoManager.contexts[c].groupingLevel
            var registered = options
            // A discardable edit is a group of its own: typing must not join it (nor it a run).
            if options.discardable && level == 0 { registered.coalescing = false }
            let groupCount = undoManager.groups.count
            group = undoManager.register(revision: revision, context: c, options: registered, shape: shape, time: time)
            startsGroup = undoManager.groups.count > groupCount
            automatic = startsGroup && level == 0
            if automatic { undoManager.groups[Int(group)].flags |= UndoGroup.automatic }
            if options.discardable {
                if level > 0 { undoManager.contexts[c].openDiscardable = true }
                // Flagged before a new group counts (so it never does); a group it joined had counted.
                if startsGroup { undoManager.setDiscardable(true, group) } else { undoManager.flag(true, group, context: c) }
            }
            log.state.group[log.index(revision)] = group
        } else {
            undoManager.contexts[c].typing = nil
        }
        if startsGroup { countChange(.done, context: session, group: group == ChangeLog.noGroup ? nil : group) }
        let range = log.range(at: revision)
        mapSelections(through: revision, owner: session, landing: range.map { Selection(caret: $0.upperBound) })
        log.journal?(.edit(OperationCoding(op), session: session, options: options, time: time))
        var change = Change(revision: revision, session: session, kind: .edit, group: group == ChangeLog.noGroup ? -1 : Int(group),
                            actionName: group == ChangeLog.noGroup ? "" : undoManager.name(undoManager.groups[Int(group)].name),
                            operation: op, time: time, range: range)
        change.opensAutomaticGroup = automatic
        return change
    }

    /// Validates `op` on the current text, applies it to the rope and logs it as a change of
    /// undo group `group` (or `ChangeLog.noGroup`) in undo context `context`. Returns the new
    /// revision, or nil when it changes nothing. The units it inserts are new ones, or
    /// `restoring` (an undo or redo putting back the units it deleted).
    func commit(_ op: TextOperation, group: Int32, context: Int, kind: ChangeKind, time: Double,
                restoring: UnitRuns? = nil) throws(DocumentError) -> Int? {
        guard op.baseLength == rope.utf16Count else {
            throw .invalidOperation(.lengthMismatch(expected: op.baseLength, actual: rope.utf16Count))
        }
        var changes = false
        var failure: OperationError?
        op.forEachSplice { splice in
            guard failure == nil else { return }
            let end = splice.position + splice.deleted
            if !rope.isCharacterBoundary(splice.position) { failure = .splitsSurrogatePair(at: splice.position); return }
            if end != splice.position && !rope.isCharacterBoundary(end) { failure = .splitsSurrogatePair(at: end); return }
            if !changes {
                let count = splice.inserted.utf16.count
                changes = count != splice.deleted || rope.substring(splice.position..<end) != splice.inserted
            }
        }
        if let failure { throw .invalidOperation(failure) }
        guard changes else { return nil }
        log.append(op, rope: rope, group: group, context: Int32(context), kind: kind, time: time, lengthAfter: op.targetLength)
        let count = op.insertedCount
        let inserted: InsertedUnits
        if let restoring {
            let runs = restoring.count == count ? restoring : .unknown(count)
            for run in runs.runs { log.state.appendUnitRun(run, deleted: false) }
            inserted = .restoring(runs)
        } else {
            if count > 0 { log.state.appendUnitRun(.init(count: Int32(clamping: count), first: nextUnit), deleted: false) }
            authorship.inserted(first: nextUnit, count: count, by: undoManager.session(ofContext: context))
            inserted = .fresh(first: nextUnit)
            nextUnit += Int64(count)
        }
        units.apply(op, inserted: inserted) { log.state.appendUnitRun($0, deleted: true) }
        log.state.closeUnits()
        Self.applyUnchecked(op, to: &rope)
        return log.revision
    }

    static func applyUnchecked(_ op: TextOperation, to rope: inout Rope) {
        switch op.storage {
        case .identity: break
        case .one(let s): rope.replace(s.position..<s.position + s.deleted, with: s.inserted)
        case .many(let splices):
            for s in splices.reversed() { rope.replace(s.position..<s.position + s.deleted, with: s.inserted) }
        }
    }

    // MARK: the log

    /// The changes after `revision`, oldest first.
    /// The text's length at an older revision (for building an edit made there), without
    /// materializing the changes since.
    public func length(atRevision revision: Int) throws(DocumentError) -> Int {
        guard revision >= log.firstAvailableRevision - 1 else {
            throw .revisionTrimmed(base: revision, firstAvailable: log.firstAvailableRevision)
        }
        guard revision <= log.revision else { throw .revisionInFuture(base: revision, current: log.revision) }
        return log.length(at: revision)
    }

    /// Throws unless the text at `revision` can be rebuilt from the log (not trimmed, not ahead).
    private func checkInLog(_ revision: Int) throws(DocumentError) {
        guard revision >= log.firstAvailableRevision - 1 else {
            throw .revisionTrimmed(base: revision, firstAvailable: log.firstAvailableRevision)
        }
        guard revision <= log.revision else { throw .revisionInFuture(base: revision, current: log.revision) }
    }

    /// The text at an older revision still in the log: the changes since undone on a copy,
    /// newest first. Costs one splice per change undone, so it suits recent revisions.
    public func rope(atRevision revision: Int) throws(DocumentError) -> Rope {
        try checkInLog(revision)
        var text = rope
        var undone = log.revision
        while undone > revision {
            Self.applyUnchecked(log.inverse(at: undone), to: &text)
            undone -= 1
        }
        return text
    }

    public func changes(since revision: Int) throws(DocumentError) -> [Change] {
        guard revision <= log.revision else { throw .revisionInFuture(base: revision, current: log.revision) }
        guard revision >= log.firstAvailableRevision - 1 else {
            throw .revisionTrimmed(base: revision, firstAvailable: log.firstAvailableRevision)
        }
        guard revision < log.revision else { return [] }
        return ((revision + 1)...log.revision).map(change(at:))
    }

    /// The changes after `revision`, oldest first, one at a time until `body` says stop:
    /// a reader with a byte budget materializes only what it sends, not the whole log.
    public func forEachChange(since revision: Int, _ body: (Change) -> Bool) throws(DocumentError) {
        guard revision <= log.revision else { throw .revisionInFuture(base: revision, current: log.revision) }
        guard revision >= log.firstAvailableRevision - 1 else {
            throw .revisionTrimmed(base: revision, firstAvailable: log.firstAvailableRevision)
        }
        var next = revision + 1
        while next <= log.revision, body(change(at: next)) { next += 1 }
    }

    /// Splices of the logged changes after `revision` (those still in the log): the work a
    /// stale edit or an old group's undo does passing through them, counted without reading them.
    public func loggedSplices(since revision: Int) -> Int {
        log.spliceCount(since: max(revision, log.firstAvailableRevision - 1))
    }

    /// UTF-16 units the logged changes after `revision` deleted and inserted: what answering
    /// them costs, counted without reading them.
    public func loggedUnits(since revision: Int) -> Int {
        log.unitCount(since: max(revision, log.firstAvailableRevision - 1))
    }

    /// UTF-16 units the logged changes after `revision` up to `last` inserted, with `perChange`
    /// added for each, summed until the total passes `limit` (what a bounded answer asks:
    /// whether they fit), from the log's counts without building the changes.
    public func insertedUnits(since revision: Int, through last: Int, perChange: Int, stoppingAbove limit: Int) -> Int {
        var total = 0
        var next = max(revision, log.firstAvailableRevision - 1) + 1
        while next <= min(last, log.revision), total <= limit {
            total += perChange
            log.forEachSplice(next) { _, _, inserted, _ in total += inserted }
            next += 1
        }
        return total
    }

    func change(at revision: Int) -> Change {
        let grouped = log.group(revision) != ChangeLog.noGroup
        let group = grouped ? Int(log.group(revision)) : -1
        let kind = log.kind(revision)
        var session = undoManager.session(ofContext: Int(log.context(revision))), reverts: RevertedGroup?, notReverted = 0
        if kind != .edit, grouped {
            // The undo's own group is the entry it pushed, which keeps the reverted group's id.
            reverts = RevertedGroup(session: session, group: Int(undoManager.groups[group].id))
            if let record = log.revert(at: revision) { (session, notReverted) = record }
        }
        var change = Change(revision: revision, session: session, kind: kind,
                            group: group, actionName: grouped ? undoManager.name(undoManager.groups[group].name) : "",
                            operation: log.operation(at: revision), time: log.time(revision), range: log.range(at: revision),
                            reverts: reverts, notReverted: notReverted)
        // The edit that began an automatic group, as `apply` said when it was made.
        change.opensAutomaticGroup = kind == .edit && grouped && Int(undoManager.groups[group].first) == revision
            && undoManager.groups[group].flags & UndoGroup.automatic != 0
        return change
    }

    /// Drops the log up to `revision`. Undo groups with a change at or before it can no
    /// longer be mapped, so they are dropped from their stacks (oldest first, as when
    /// levelsOfUndo is exceeded); every later group stays undoable.
    /// `journaled: false` trims this copy alone: a node of a cluster trims its memory on its
    /// own schedule, and its journal must hold only what every node replays.
    public func trimLog(through revision: Int, journaled: Bool = true) {
        let revision = min(revision, log.revision)
        guard revision >= log.firstAvailableRevision else { return }
        undoManager.dropGroups(through: revision)
        log.trim(through: revision)
        undoManager.compactGroups()
        if undoManager.compactContexts() {
            // The contexts moved: the cached one may be another session's now.
            lastSession = nil
            lastContext = 0
            // A context dropped belonged to an ended session: nobody asks for its count.
            changeCounts.contexts = changeCounts.contexts.filter { undoManager.contextIndex[$0.key] != nil }
        }
        if journaled { log.journal?(.trimLog(through: revision)) }
    }

    /// Bytes allocated by the change log and the undo history.
    public var historyBytes: Int { log.allocatedBytes + undoManager.allocatedBytes + units.allocatedBytes + authorship.allocatedBytes }

    // MARK: who wrote what

    /// The identities of the text's units at `revision` (default: now), an older one still in
    /// the log found by undoing the changes since on a copy (a splice each, as `rope(atRevision:)`).
    public func unitRuns(atRevision revision: Int? = nil) throws(DocumentError) -> UnitRuns {
        try unitRuns(atRevisions: [revision ?? log.revision])[0]
    }

    /// The identities of the text's units at each of `revisions`, found in one pass back
    /// through the log (to the oldest of them), each answer in the order asked.
    public func unitRuns(atRevisions revisions: [Int]) throws(DocumentError) -> [UnitRuns] {
        for revision in revisions { try checkInLog(revision) }
        var found = [UnitRuns?](repeating: nil, count: revisions.count)
        var copy = units
        var undone = log.revision
        for (i, revision) in revisions.enumerated().sorted(by: { $0.element > $1.element }) {
            while undone > revision {
                _ = copy.apply(log.inverse(at: undone), inserted: log.units(at: undone).deleted)
                undone -= 1
            }
            found[i] = copy.all
        }
        return found.map { $0! }
    }

    /// Who wrote each part of the text at `revision` (default: now), as runs of UTF-16 ranges.
    public func authors(atRevision revision: Int? = nil) throws(DocumentError) -> [Authorship.Run] {
        authorship.runs(of: try unitRuns(atRevision: revision).runs)
    }
}

// MARK: - Replaying the journal

extension Document {
    /// Re-runs one journaled event.
    public func replay(_ event: DocumentEvent) throws(DocumentError) {
        let um = undoManager
        switch event {
        case let .edit(op, session, options, time):
            let operation: TextOperation
            do { operation = try op.operation() } catch { throw .invalidOperation(error) }
            try apply(operation, session: session, options: options, time: time)
        case let .revert(request):
            // An undo that found nothing left to undo is journaled for the groups it dropped
            // on the way; replayed, it drops them again and ends the same way.
            // So is one refused as too large after closing an open group.
            do { try perform(request) } catch .nothingToUndo, .nothingToRedo, .undoTooLarge {}
        case let .undo(scope, time, nested):
            // An undo that found nothing left to undo is journaled for the groups it dropped
            // on the way; replayed, it drops them again and ends the same way.
            do {
                if nested { try undoNestedGroup(scope: scope, time: time) } else { try undo(scope: scope, time: time) }
            } catch .nothingToUndo {}
        case let .redo(scope, time):
            do { try redo(scope: scope, time: time) } catch .nothingToRedo {}
        case let .beginUndoGrouping(session): um.beginUndoGrouping(session: session)
        case let .endUndoGrouping(session): try um.endUndoGrouping(session: session)
        case let .setActionName(name, scope): um.setActionName(name, scope: scope)
        case let .setLevelsOfUndo(levels, scope): um.setLevelsOfUndo(levels, scope: scope)
        case let .setGroupsByEvent(flag): um.groupsByEvent = flag
        case let .removeAllActions(scope):
            if let scope { um.removeAllActions(scope) } else { um.removeAllActions() }
        case let .removeAllActionsWithTarget(session): um.removeAllActions(withTarget: session)
        case let .setActionIsDiscardable(flag, scope): um.setActionIsDiscardable(flag, scope: scope)
        case .disableUndoRegistration: um.disableUndoRegistration()
        case .enableUndoRegistration: try um.enableUndoRegistration()
        case let .disableSessionUndoRegistration(session): um.disableUndoRegistration(session: session)
        case let .enableSessionUndoRegistration(session): try um.enableUndoRegistration(session: session)
        case let .updateChangeCount(kind): updateChangeCount(kind)
        case let .setEditingDisabled(flag): isEditingDisabled = flag
        case let .trimLog(revision): trimLog(through: revision)
        }
    }
}
