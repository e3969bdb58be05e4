/// UIDocument.ChangeKind: how a change affects the count of unsaved changes.
public enum DocumentChangeKind: String, Sendable, Codable {
    case done, undone, redone, cleared
}

/// UIDocument's count of unsaved changes for one scope, with NSDocument's rule for a save
/// point that can no longer be reached: undone past the save, then changed anew, the count
/// never comes back to 0 before the next save (the arithmetic alone would say "clean" on a
/// text that was never saved).
public struct ChangeCounter: Sendable, Equatable, Codable {
    public internal(set) var count = 0
    /// Set by a change made while the count was below 0; cleared by a save.
    public internal(set) var savePointLost = false

    public init(count: Int = 0, savePointLost: Bool = false) {
        self.count = count
        self.savePointLost = savePointLost
    }

    mutating func apply(_ kind: DocumentChangeKind) {
        switch kind {
        case .done where count < 0:
            // As far from the save as the undone groups plus this one, and for good.
            savePointLost = true
            count = -count + 1
        case .done, .redone:
            count += 1
        case .undone:
            count = savePointLost ? max(1, count - 1) : count - 1
        case .cleared:
            self = ChangeCounter()
        }
    }
}

/// The document's count and each session context's: done, undone and redone in that
/// context (whoever asked for the undo), all cleared by a save.
public struct ChangeCounts: Sendable, Equatable, Codable {
    public internal(set) var document = ChangeCounter()
    public internal(set) var contexts: [SessionID: ChangeCounter] = [:]

    public init() {}

    /// The count of `scope`: the document's, or that session's context's (0 if it has none).
    public func count(_ scope: UndoScope) -> Int {
        switch scope {
        case .document: document.count
        case .session(let s): contexts[s]?.count ?? 0
        }
    }

    mutating func apply(_ kind: DocumentChangeKind, context: SessionID?) {
        if kind == .cleared {
            self = ChangeCounts()
            return
        }
        document.apply(kind)
        if let context { contexts[context, default: ChangeCounter()].apply(kind) }
    }
}

extension Document {
    /// Applies a change-count step, as UIDocument.updateChangeCount, to the document's count:
    /// done and redone count up, undone counts down, cleared (after a save) resets every
    /// scope's count to zero.
    public func updateChangeCount(_ kind: DocumentChangeKind) {
        countChange(kind, context: nil)
        log.journal?(.updateChangeCount(kind))
    }

    func countChange(_ kind: DocumentChangeKind, context: SessionID?) {
        changeCounts.apply(kind, context: context)
    }

    /// UIDocument's count for the document.
    public var changeCount: Int { changeCounts.document.count }

    /// UIDocument's count for a scope: the document's, or one session's own context's.
    public func changeCount(_ scope: UndoScope) -> Int { changeCounts.count(scope) }

    public var hasUnsavedChanges: Bool { changeCount != 0 }
}
