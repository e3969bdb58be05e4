/// NSUndoManager for a shared document: one per document, holding one undo context
/// per session plus the anonymous one. Groups live in exactly one context; the document
/// scope acts on the context whose top group is the most recent, so both scopes always agree.
///
/// Not Sendable: the server guards its document (and so this) with a lock.
///
/// Its state skips the dynamic exclusivity checks, as `Document`'s does.
public final class UndoManager {
    let log: ChangeLog
    @exclusivity(unchecked) var groups: [UndoGroup] = []
    /// Context 0 is the anonymous one.
    @exclusivity(unchecked) var contexts: [UndoContext] = [UndoContext(session: nil)]
    @exclusivity(unchecked) var contextIndex: [SessionID: Int] = [:]
    @exclusivity(unchecked) var names: [String] = []
    @exclusivity(unchecked) var nameIndex: [String: Int32] = [:]
    @exclusivity(unchecked) var mapped: [Int32: MappedInverse] = [:]
    @exclusivity(unchecked) var documentLevels = 0
    @exclusivity(unchecked) var registrationDisabled = 0
    @exclusivity(unchecked) var liveUndoCount = 0
    var observers: [(id: Int, body: (UndoNotification) -> Void)] = []
    var nextObserver = 0
    @exclusivity(unchecked) var typingPause: Double
    /// The document's text now, to tell an inverse that would change nothing (set by Document).
    var currentText: () -> Rope = { Rope("") }
    /// Where the units with these identities are in the text now, ascending (set by Document).
    var unitPositions: (UnitRuns) -> [(position: Int, identity: Int64)] = { _ in [] }
    /// Told when a group that already counted (one on an undo stack) becomes discardable or
    /// stops being so, with its context: the document's change counts follow (set by Document).
    var recountDiscardable: (_ context: Int, _ discardable: Bool) -> Void = { _, _ in }
    /// The mapped inverses `offered` computed for top groups, so asking for a title again maps
    /// only the changes since. Kept apart from `mapped`, which snapshots hold: a title asked
    /// for must not make two otherwise equal documents' snapshots differ.
    var offeredCache: [Int32: OfferedEntry] = [:]

    struct OfferedEntry {
        /// The group as it was when mapped; any change to it (a change appended, a pop handing
        /// it a mapping, a renumbering) makes the entry stale.
        var first: Int32, last: Int32, mappedAt: Int?
        var inverse: MappedInverse
    }

    /// True while an undo's change is applied and journaled: after willUndo, before didUndo.
    @exclusivity(unchecked) public internal(set) var isUndoing = false
    /// True while a redo's change is applied and journaled: after willRedo, before didRedo.
    @exclusivity(unchecked) public internal(set) var isRedoing = false

    /// When true (the default), a change outside an explicit group is its own group (or
    /// joins the typing run); when false, an undoable change needs an open group.
    public var groupsByEvent = true {
        didSet { log.journal?(.setGroupsByEvent(groupsByEvent)) }
    }

    init(log: ChangeLog, typingPause: Double, levelsOfUndo: Int) {
        self.log = log
        self.typingPause = typingPause
        self.documentLevels = max(0, levelsOfUndo)
        _ = intern("Typing")
    }

    /// The interned index of "Typing" (always 0).
    static let typingName: Int32 = 0

    // MARK: contexts and names

    func context(for session: SessionID?) -> Int {
        guard let session else { return 0 }
        if let c = contextIndex[session] { return c }
        contexts.append(UndoContext(session: session))
        contextIndex[session] = contexts.count - 1
        return contexts.count - 1
    }

    func existingContext(_ session: SessionID?) -> Int? {
        guard let session else { return 0 }
        return contextIndex[session]
    }

    func intern(_ name: String) -> Int32 {
        if name.isEmpty { return -1 }
        if let i = nameIndex[name] { return i }
        names.append(name)
        nameIndex[name] = Int32(names.count - 1)
        return Int32(names.count - 1)
    }

    func name(_ index: Int32) -> String { index < 0 ? "" : names[Int(index)] }

    func session(ofContext c: Int) -> SessionID? { contexts[c].session }

    static func scope(ofSession session: SessionID?) -> UndoScope {
        session.map { .session($0) } ?? .document
    }

    /// The context the document scope acts on: among the contexts with no group open (the
    /// document scope never closes someone's open group, and never reverts or redoes above a
    /// group its owner may still be adding to), the one whose offered group is the most recent.
    /// A group others erased entirely is skipped here exactly as a session's own undo skips it,
    /// so the document scope offers what its next undo reverts.
    func latestContext(redo: Bool) -> Int? {
        // A context's offered group is at or below its top, and a stack's groups get older
        // downwards: contexts are tried newest top first, until no top can beat the best.
        var candidates: [(context: Int, top: Int32)] = []
        for c in contexts.indices where contexts[c].groupingLevel == 0 {
            guard let top = redo ? contexts[c].redo.last : contexts[c].undoTop else { continue }
            candidates.append((c, recency(top, redo: redo)))
        }
        candidates.sort { $0.top > $1.top }
        var best: Int?, bestRevision: Int32 = -1
        for candidate in candidates where candidate.top > bestRevision {
            guard let g = offered(context: candidate.context, redo: redo) else { continue }
            let revision = recency(g, redo: redo)
            if revision > bestRevision { best = candidate.context; bestRevision = revision }
        }
        return best
    }

    /// How recent a group is for the document scope: its latest change (for redo: its undo).
    private func recency(_ g: Int32, redo: Bool) -> Int32 { redo ? groups[Int(g)].first : groups[Int(g)].last }

    func context(for scope: UndoScope, redo: Bool) -> Int? {
        switch scope {
        case .document: latestContext(redo: redo)
        case .session(let s): contextIndex[s]
        }
    }

    /// The live group with API id `id`: its context, and whether it is on the redo stack.
    func locate(id: Int) -> (context: Int, group: Int32, redo: Bool)? {
        for c in contexts.indices {
            for g in contexts[c].undo[contexts[c].undoBottom...].reversed() where Int(groups[Int(g)].id) == id { return (c, g, false) }
            for g in contexts[c].redo.reversed() where Int(groups[Int(g)].id) == id { return (c, g, true) }
        }
        return nil
    }

    // MARK: notifications

    public func addObserver(_ body: @escaping (UndoNotification) -> Void) -> ObserverToken {
        nextObserver += 1
        observers.append((nextObserver, body))
        return ObserverToken(id: nextObserver)
    }

    public func removeObserver(_ token: ObserverToken) {
        observers.removeAll { $0.id == token.id }
    }

    func post(_ name: UndoNotification.Name, _ scope: UndoScope) {
        guard !observers.isEmpty else { return }
        let note = UndoNotification(name: name, scope: scope)
        for observer in observers { observer.body(note) }
    }

    // MARK: memory

    /// Bytes held by the undo history (groups, stacks, mapped inverses), not the log.
    var allocatedBytes: Int {
        var bytes = groups.capacity * MemoryLayout<UndoGroup>.stride
        for context in contexts { bytes += (context.undo.capacity + context.redo.capacity) * 4 }
        for (_, m) in mapped {
            bytes += 64
            m.inverse.forEachSplice { bytes += 40 + $0.inserted.utf8.count }
            bytes += m.inserted.allocatedBytes + m.lostUnits.allocatedBytes
            if let b = m.belowUnits { bytes += b.inserted.allocatedBytes + b.deleted.allocatedBytes }
        }
        return bytes
    }
}
