// MARK: - Levels

extension UndoManager {
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

    /// The cap that applies to the scope's stack: a session's own when it set one, else the
    /// document's (what `enforceLevels` keeps), where `levelsOfUndo(_:)` is what it set.
    public func levelsInForce(_ scope: UndoScope) -> Int {
        switch scope {
        case .document: documentLevels
        case .session(let s):
            contextIndex[s].map { contexts[$0].levels > 0 ? contexts[$0].levels : documentLevels } ?? documentLevels
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
}
