// MARK: - Opening and closing groups

extension UndoManager {
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
}

// MARK: - Registering an edit

/// How a logged change joins an undo group: a new group, the open one, or the typing run it
/// continues (see docs/undo-rules.md).
extension UndoManager {
    /// The shape of a one-splice edit, for typing coalescing.
    struct EditShape {
        var position: Int
        var deleted: Int
        var inserted: Int
    }

    /// Registers the change just logged at `revision` for context `c`; returns its group.
    func register(revision: Int, context c: Int, options: EditOptions, shape: EditShape?, time: Double) -> Int32 {
        clearRedo(c)
        let scope = Self.scope(ofSession: contexts[c].session)
        if contexts[c].groupingLevel > 0 {
            contexts[c].typing = nil
            if let name = options.actionName { setName(name, scope: scope, outermost: false) }
            contexts[c].nestedTail = nil
            if let starts = contexts[c].nestedStarts, starts.contains(-1) {
                contexts[c].nestedStarts = starts.map { $0 < 0 ? Int32(revision) : $0 }
            }
            let open = contexts[c].openGroup
            if open >= 0 && groups[Int(open)].isLive {
                append(revision, to: open)
                return open
            }
            let g = push(revision: revision, context: c, name: contexts[c].openName)
            if contexts[c].openDiscardable == true { setDiscardable(true, g) }
            contexts[c].openGroup = g
            return g
        }
        let typable = shape.map { ($0.deleted == 0) != ($0.inserted == 0) } ?? false
        if let shape, typable, options.coalescing, !options.newGroup, options.actionName == nil,
           let run = contexts[c].typing, let mappedStart = coalesces(run, shape, context: c, revision: revision, time: time) {
            append(revision, to: run.group)
            contexts[c].typing!.caret = shape.deleted == 0 ? shape.position + shape.inserted : shape.position
            // The run's start moves with foreign changes before it, like its caret.
            contexts[c].typing!.start = shape.deleted > 0 ? shape.position : mappedStart
            contexts[c].typing!.time = time
            contexts[c].typing!.revision = revision
            post(.checkpoint, scope)
            return run.group
        }
        let name = options.actionName.map(intern) ?? (typable ? Self.typingName : -1)
        // An automatic group opens and closes around its one event, announced as NSUndoManager
        // announces its per-event group (issue 37; a change joining a typing run opens none).
        post(.didOpenUndoGroup, scope)
        let g = push(revision: revision, context: c, name: name)
        if let shape, typable, options.coalescing, options.actionName == nil {
            let caret = shape.deleted == 0 ? shape.position + shape.inserted : shape.position
            contexts[c].typing = TypingRun(group: g, deleting: shape.deleted > 0, start: shape.position,
                                         caret: caret, time: time, revision: revision)
        } else {
            contexts[c].typing = nil
        }
        post(.checkpoint, scope)
        post(.willCloseUndoGroup, scope)
        post(.didCloseUndoGroup, scope)
        return g
    }

    /// Whether a one-splice edit continues the typing run: same kind, adjacent, within
    /// the pause, and no foreign change touched the run's range since its last keystroke.
    /// Returns the run's start mapped to the current text, or nil when it does not continue.
    func coalesces(_ run: TypingRun, _ shape: EditShape, context c: Int, revision: Int, time: Double) -> Int? {
        guard contexts[c].undoTop == run.group, groups[Int(run.group)].isLive,
              time - run.time < typingPause, time >= run.time,
              run.deleting == (shape.deleted > 0) else { return nil }
        var start = run.start, caret = run.caret
        if run.revision < revision - 1 {
            for r in (run.revision + 1)..<revision {
                var delta = 0, touched = false
                log.forEachSplice(r) { p, d, n, _ in
                    if touched { return }
                    if p + d < start { delta += n - d } else if p <= caret { touched = true }
                }
                if touched { return nil }
                start += delta
                caret += delta
            }
        }
        if run.deleting {
            return shape.position + shape.deleted == caret || shape.position == caret ? start : nil
        }
        return shape.position == caret ? start : nil
    }

    func push(revision: Int, context c: Int, name: Int32) -> Int32 {
        let g = Int32(groups.count)
        groups.append(UndoGroup(context: Int32(c), first: Int32(revision), last: Int32(revision), name: name, flags: UndoGroup.live))
        contexts[c].undo.append(g)
        liveUndoCount += 1
        enforceLevels(c)
        return g
    }

    /// Adds the change at `revision` to group `g`, mapping the group first if foreign
    /// changes came in since its latest change.
    func append(_ revision: Int, to g: Int32) {
        if mapped[g] == nil && Int(groups[Int(g)].last) == revision - 1 {
            groups[Int(g)].last = Int32(revision)
            return
        }
        var m = upToDate(g, through: revision - 1)
        let own = log.inverse(at: revision)
        m.inserted = OperationUnits.compose(own, log.units(at: revision).inverted, m.inverse, OperationUnits(inserted: m.inserted),
                                            deleted: false).inserted
        m.inverse = Self.must { () throws(OperationError) in try own.compose(m.inverse) }
        m.validAt = revision
        mapped[g] = m
        groups[Int(g)].last = Int32(revision)
    }
}

// MARK: - Nested groups

/// undoNestedGroup inside an open group. Nested groups join their open outer group as it
/// grows (one group, one inverse); only the boundary of the last closed nested group is
/// kept. undoNestedGroup is allowed only while nothing was registered since that group
/// closed, so its changes are exactly the open group's tail: the tail is split off as a
/// group of its own, right on top of the open one, and undone as any closed group.
extension UndoManager {
    /// Splits the open group's tail (the last closed nested group) off context c's open
    /// group; `groupOpen` when the open group ends in changes of its own instead.
    func splitNestedTail(context c: Int) throws(DocumentError) {
        let g = contexts[c].openGroup
        let group = groups[Int(g)]
        guard group.isLive, let s = contexts[c].nestedTail.map(Int.init), s >= Int(group.first) else {
            throw .groupOpen(level: contexts[c].groupingLevel)
        }
        contexts[c].nestedTail = nil
        guard s > Int(group.first) else {
            // The nested group is all the open group holds: it is undone whole, and the
            // open level goes on empty.
            contexts[c].openGroup = -1
            return
        }
        var headLast = s - 1
        while log.group(headLast) != g { headLast -= 1 }
        let t = Int32(groups.count)
        groups.append(UndoGroup(context: Int32(c), first: Int32(s), last: group.last, name: group.name, flags: group.flags))
        for r in s...Int(group.last) where log.group(r) == g { log.state.group[log.index(r)] = t }
        mapped[t] = replayedInverse(of: t, from: s, through: log.revision)
        mapped[g] = replayedInverse(of: g, from: Int(group.first), through: headLast)
        groups[Int(g)].last = Int32(headLast)
        contexts[c].undo.append(t)
        liveUndoCount += 1
    }

    /// Group g's inverse from its change at `from` on, built as register and append build
    /// it change by change: own changes composed in front, anyone else's mapped through.
    func replayedInverse(of g: Int32, from: Int, through: Int) -> MappedInverse {
        var m = MappedInverse(inverse: log.inverse(at: from), validAt: from, below: nil, inserted: log.units(at: from).deleted)
        guard from < through else { return m }
        for r in (from + 1)...through {
            if log.group(r) == g {
                let own = log.inverse(at: r)
                m.inserted = OperationUnits.compose(own, log.units(at: r).inverted, m.inverse, OperationUnits(inserted: m.inserted),
                                                    deleted: false).inserted
                m.inverse = Self.must { () throws(OperationError) in try own.compose(m.inverse) }
            } else {
                Self.map(&m, through: log.operation(at: r), units: log.units(at: r))
            }
            m.validAt = r
        }
        return m
    }
}

// MARK: - Registration

extension UndoManager {
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
}

// MARK: - Registration per session

/// NSUndoManager's disableUndoRegistration has one count for the whole manager (here
/// `disableUndoRegistration()`, the document's). A shared document also lets one session
/// stop registering its own edits without touching anyone else's: each context has a count
/// of its own, nesting as NSUndoManager's does.
extension UndoManager {
    /// Whether a change in `scope` would be registered: the document's registration is on
    /// and, for a session, its own too.
    public func isUndoRegistrationEnabled(_ scope: UndoScope) -> Bool {
        registrationDisabledLevel(scope) == 0
    }

    /// How many disables are unmatched for `scope`: the document's count, plus a session's
    /// own for a session scope.
    public func registrationDisabledLevel(_ scope: UndoScope) -> Int {
        switch scope {
        case .document: registrationDisabled
        case .session(let s): registrationDisabled + (contextIndex[s].map { contexts[$0].registrationDisabled } ?? 0)
        }
    }

    /// The session's own count alone (0 without a context).
    public func sessionRegistrationDisabledLevel(_ session: SessionID) -> Int {
        contextIndex[session].map { contexts[$0].registrationDisabled } ?? 0
    }

    /// Whether context c's changes are registered now.
    func registers(context c: Int) -> Bool { registrationDisabled == 0 && contexts[c].registrationDisabled == 0 }

    /// disableUndoRegistration for `session`'s edits alone (nestable); returns its own count.
    @discardableResult
    public func disableUndoRegistration(session: SessionID) -> Int {
        let c = context(for: session)
        contexts[c].registrationDisabled += 1
        // A typing run must not go on across the disabled stretch.
        contexts[c].typing = nil
        log.journal?(.disableSessionUndoRegistration(session))
        return contexts[c].registrationDisabled
    }

    /// Undoes one `disableUndoRegistration(session:)`; `undoRegistrationNotDisabled` without
    /// a matching one, where NSUndoManager raises. Returns the session's own count after it.
    @discardableResult
    public func enableUndoRegistration(session: SessionID) throws(DocumentError) -> Int {
        guard let c = contextIndex[session], contexts[c].registrationDisabled > 0 else { throw .undoRegistrationNotDisabled }
        contexts[c].registrationDisabled -= 1
        log.journal?(.enableSessionUndoRegistration(session))
        return contexts[c].registrationDisabled
    }
}
