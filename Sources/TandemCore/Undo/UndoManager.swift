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

    /// The context whose undo top (or, for redo, redo top) is the most recent, among the contexts
    /// with no group open: the document scope never closes someone's open group, and never
    /// reverts (or redoes above) a group its owner may still be adding to.
    func latestContext(redo: Bool) -> Int? {
        var best: Int?, bestRevision: Int32 = -1
        for c in contexts.indices where contexts[c].groupingLevel == 0 {
            let top = redo ? contexts[c].redo.last : contexts[c].undoTop
            guard let top else { continue }
            let revision = redo ? groups[Int(top)].first : groups[Int(top)].last
            if revision > bestRevision { best = c; bestRevision = revision }
        }
        return best
    }

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

    // MARK: grouping

    /// Opens a (nested) group for `session` (nil: the anonymous context); returns the new
    /// grouping level. Changes the session makes while it is open form one group.
    @discardableResult
    public func beginUndoGrouping(session: SessionID?) -> Int {
        let c = context(for: session)
        contexts[c].groupingLevel += 1
        contexts[c].typing = nil
        if contexts[c].groupingLevel > 1 { contexts[c].nestedStarts = (contexts[c].nestedStarts ?? []) + [-1] }
        log.journal?(.beginUndoGrouping(session: session))
        post(.didOpenUndoGroup, Self.scope(ofSession: session))
        post(.checkpoint, Self.scope(ofSession: session))
        return contexts[c].groupingLevel
    }

    /// Closes the innermost open group; `noOpenGroup` when none is open.
    @discardableResult
    public func endUndoGrouping(session: SessionID?) throws(DocumentError) -> Int {
        guard let c = existingContext(session), contexts[c].groupingLevel > 0 else { throw .noOpenGroup }
        closeLevel(c)
        log.journal?(.endUndoGrouping(session: session))
        return contexts[c].groupingLevel
    }

    func closeLevel(_ c: Int) {
        let scope = Self.scope(ofSession: contexts[c].session)
        post(.checkpoint, scope)
        post(.willCloseUndoGroup, scope)
        if contexts[c].groupingLevel > 1, let start = contexts[c].nestedStarts?.popLast() {
            contexts[c].nestedTail = start >= 0 ? start : nil
        }
        contexts[c].groupingLevel -= 1
        if contexts[c].groupingLevel == 0 {
            contexts[c].openGroup = -1
            contexts[c].openName = -1
            contexts[c].openNamedOutside = false
            contexts[c].openDiscardable = nil
            contexts[c].nestedStarts = nil
            contexts[c].nestedTail = nil
        }
        post(.didCloseUndoGroup, scope)
    }

    /// Open levels over all contexts.
    var openLevels: Int { contexts.reduce(0) { $0 + $1.groupingLevel } }

    public func groupingLevel(_ scope: UndoScope) -> Int {
        switch scope {
        case .document: contexts[0].groupingLevel
        case .session(let s): contextIndex[s].map { contexts[$0].groupingLevel } ?? 0
        }
    }

    // MARK: registration

    public var isUndoRegistrationEnabled: Bool { registrationDisabled == 0 }

    /// Nestable, as NSUndoManager's: every disable needs its enable.
    public func disableUndoRegistration() {
        registrationDisabled += 1
        log.journal?(.disableUndoRegistration)
    }

    /// `undoRegistrationNotDisabled` without a matching disable, where NSUndoManager raises.
    public func enableUndoRegistration() throws(DocumentError) {
        guard registrationDisabled > 0 else { throw .undoRegistrationNotDisabled }
        registrationDisabled -= 1
        log.journal?(.enableUndoRegistration)
    }

    // MARK: levels

    /// The document's cap on undo groups: every context's own, unless it set one (0 = unlimited).
    public var levelsOfUndo: Int {
        get { documentLevels }
        set { setLevelsOfUndo(newValue, scope: .document) }
    }

    public func levelsOfUndo(_ scope: UndoScope) -> Int {
        switch scope {
        case .document: documentLevels
        case .session(let s): contextIndex[s].map { contexts[$0].levels } ?? 0
        }
    }

    /// Caps a scope's undo stack; the oldest groups beyond it are dropped at once.
    public func setLevelsOfUndo(_ levels: Int, scope: UndoScope) {
        let levels = max(0, levels)
        switch scope {
        case .document:
            documentLevels = levels
            for c in contexts.indices { enforceLevels(c) }
        case .session(let s):
            let c = context(for: s)
            contexts[c].levels = levels
            enforceLevels(c)
        }
        log.journal?(.setLevelsOfUndo(levels, scope: scope))
    }

    /// Each context keeps at most its own levelsOfUndo, or the document's when it set none:
    /// another session's typing never pushes out my groups.
    func enforceLevels(_ c: Int) {
        let cap = contexts[c].levels > 0 ? contexts[c].levels : documentLevels
        if cap > 0 {
            while contexts[c].undoCount > cap { dropBottom(c) }
        }
    }

    func dropBottom(_ c: Int) {
        let g = contexts[c].undo[contexts[c].undoBottom]
        kill(g)
        liveUndoCount -= 1
        if contexts[c].openGroup == g { contexts[c].openGroup = -1 }
        if contexts[c].typing?.group == g { contexts[c].typing = nil }
        contexts[c].undoBottom += 1
        if contexts[c].undoBottom > 64 && contexts[c].undoBottom * 2 > contexts[c].undo.count {
            contexts[c].undo.removeFirst(contexts[c].undoBottom)
            contexts[c].undoBottom = 0
        }
    }

    func kill(_ g: Int32) {
        groups[Int(g)].flags &= ~UndoGroup.live
        mapped[g] = nil
    }

    // MARK: removing

    /// Clears every context and, as NSUndoManager's, re-enables registration.
    public func removeAllActions() {
        for c in contexts.indices { clear(c) }
        registrationDisabled = 0
        log.journal?(.removeAllActions(scope: nil))
    }

    /// `.document` is `removeAllActions()`; `.session(s)` clears only that session's
    /// context and leaves registration (which is document-wide) as it is.
    public func removeAllActions(_ scope: UndoScope) {
        switch scope {
        case .document:
            for c in contexts.indices { clear(c) }
            registrationDisabled = 0
        case .session(let s):
            guard let c = contextIndex[s] else { return }
            clear(c)
        }
        log.journal?(.removeAllActions(scope: scope))
    }

    /// Clears what `session` registered when the session ends, and its context's open groups
    /// and settings with it: nothing can close or use them any more. The context is then as
    /// a new one would be, so `compactContexts` drops it once the log no longer names it (an
    /// ended session that had left a group open, or set a levelsOfUndo of its own, kept its
    /// context in memory and in every snapshot for ever). A session that never had an undo
    /// context here changes nothing and journals nothing.
    public func removeAllActions(withTarget session: SessionID) {
        guard let c = contextIndex[session] else { return }
        clear(c)
        contexts[c] = UndoContext(session: session)
        log.journal?(.removeAllActionsWithTarget(session))
    }

    func clear(_ c: Int) {
        for g in contexts[c].undo[contexts[c].undoBottom...] { kill(g); liveUndoCount -= 1 }
        for g in contexts[c].redo { kill(g) }
        contexts[c].undo = []
        contexts[c].undoBottom = 0
        contexts[c].redo = []
        contexts[c].openGroup = -1
        contexts[c].typing = nil
    }

    func clearRedo(_ c: Int) {
        guard !contexts[c].redo.isEmpty else { return }
        for g in contexts[c].redo { kill(g) }
        contexts[c].redo.removeAll(keepingCapacity: true)
    }

    // MARK: names

    /// Names the open group of the scope or, with none open, its latest group.
    /// Nested groups are one group: a name set at the outermost level wins; a name set
    /// inside a nested group is used only while the outer level has set none.
    public func setActionName(_ actionName: String, scope: UndoScope) {
        setName(actionName, scope: scope, outermost: false)
        log.journal?(.setActionName(actionName, scope: scope))
    }

    /// The context setActionName and setActionIsDiscardable act on: the document scope means
    /// the anonymous context while it has a group open, else the latest group by anyone.
    func namedContext(_ scope: UndoScope) -> Int? {
        switch scope {
        case .document: contexts[0].groupingLevel > 0 ? 0 : latestContext(redo: false)
        case .session(let s): contextIndex[s]
        }
    }

    func setName(_ actionName: String, scope: UndoScope, outermost: Bool) {
        guard let c = namedContext(scope) else { return }
        let index = intern(actionName)
        if contexts[c].groupingLevel > 0 {
            let outer = outermost || contexts[c].groupingLevel == 1
            if outer || !contexts[c].openNamedOutside {
                contexts[c].openName = index
                if outer { contexts[c].openNamedOutside = true }
                if contexts[c].openGroup >= 0 { groups[Int(contexts[c].openGroup)].name = index }
            }
        } else if let top = contexts[c].undoTop {
            groups[Int(top)].name = index
            contexts[c].typing = nil
        }
    }

    /// The name of the group the next undo reverts: groups whose whole effect others already
    /// erased are skipped, as the undo skips them.
    public func undoActionName(_ scope: UndoScope) -> String {
        guard let c = context(for: scope, redo: false), let g = offered(context: c, redo: false) else { return "" }
        return name(groups[Int(g)].name)
    }

    public func redoActionName(_ scope: UndoScope) -> String {
        guard let c = context(for: scope, redo: true), let g = offered(context: c, redo: true) else { return "" }
        return name(groups[Int(g)].name)
    }

    public func undoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Undo" : "Undo \(actionName)"
    }

    public func redoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Redo" : "Redo \(actionName)"
    }

    public func undoMenuItemTitle(_ scope: UndoScope) -> String { undoMenuTitle(forUndoActionName: undoActionName(scope)) }
    public func redoMenuItemTitle(_ scope: UndoScope) -> String { redoMenuTitle(forUndoActionName: redoActionName(scope)) }

    /// Whether an undo would change the text: false when every group left is one others erased.
    public func canUndo(_ scope: UndoScope) -> Bool {
        context(for: scope, redo: false).flatMap { offered(context: $0, redo: false) } != nil
    }

    public func canRedo(_ scope: UndoScope) -> Bool {
        context(for: scope, redo: true).flatMap { offered(context: $0, redo: true) } != nil
    }

    // MARK: discardable

    /// Marks the scope's open (or latest) group as discardable, as NSUndoManager's
    /// setActionIsDiscardable (e.g. a change that needs no save prompt).
    /// With a group open it marks that group, even before it holds a change (the flag waits
    /// for its first change, like the open group's name); scopes resolve as in setActionName.
    public func setActionIsDiscardable(_ discardable: Bool, scope: UndoScope) {
        guard let c = namedContext(scope) else { return }
        if contexts[c].groupingLevel > 0 {
            contexts[c].openDiscardable = discardable
            if contexts[c].openGroup >= 0 { setDiscardable(discardable, contexts[c].openGroup) }
        } else if let top = contexts[c].undoTop {
            setDiscardable(discardable, top)
        } else {
            return
        }
        log.journal?(.setActionIsDiscardable(discardable, scope: scope))
    }

    func setDiscardable(_ discardable: Bool, _ g: Int32) {
        if discardable { groups[Int(g)].flags |= UndoGroup.discardable } else { groups[Int(g)].flags &= ~UndoGroup.discardable }
    }

    public func undoActionIsDiscardable(_ scope: UndoScope) -> Bool {
        guard let c = context(for: scope, redo: false), let g = offered(context: c, redo: false) else { return false }
        return groups[Int(g)].flags & UndoGroup.discardable != 0
    }

    public func redoActionIsDiscardable(_ scope: UndoScope) -> Bool {
        guard let c = context(for: scope, redo: true), let g = offered(context: c, redo: true) else { return false }
        return groups[Int(g)].flags & UndoGroup.discardable != 0
    }

    // MARK: history

    public func history(_ scope: UndoScope) -> UndoHistory {
        var undo: [UndoHistory.Entry] = [], redo: [UndoHistory.Entry] = []
        func entry(_ g: Int32, redo: Bool) -> UndoHistory.Entry {
            let group = groups[Int(g)]
            let revision = Int(redo ? group.first : group.last)
            return .init(id: Int(group.id), actionName: name(group.name), revision: revision,
                         session: contexts[Int(group.context)].session, time: log.time(revision))
        }
        let selected: [Int]
        switch scope {
        case .document: selected = Array(contexts.indices)
        case .session(let s): selected = contextIndex[s].map { [$0] } ?? []
        }
        for c in selected {
            undo += contexts[c].undo[contexts[c].undoBottom...].map { entry($0, redo: false) }
            redo += contexts[c].redo.map { entry($0, redo: true) }
        }
        if selected.count > 1 {
            undo.sort { $0.revision < $1.revision }
            redo.sort { $0.revision < $1.revision }
        }
        return UndoHistory(
            canUndo: canUndo(scope), canRedo: canRedo(scope),
            undoActionName: undoActionName(scope), redoActionName: redoActionName(scope),
            undoMenuItemTitle: undoMenuItemTitle(scope), redoMenuItemTitle: redoMenuItemTitle(scope),
            levelsOfUndo: levelsOfUndo(scope), groupingLevel: groupingLevel(scope),
            undoStack: undo, redoStack: redo)
    }

    /// Bytes held by the undo history (groups, stacks, mapped inverses), not the log.
    var allocatedBytes: Int {
        var bytes = groups.capacity * MemoryLayout<UndoGroup>.stride
        for context in contexts { bytes += (context.undo.capacity + context.redo.capacity) * 4 }
        for (_, m) in mapped {
            bytes += 64
            m.inverse.forEachSplice { bytes += 40 + $0.inserted.utf8.count }
        }
        return bytes
    }
}
