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
