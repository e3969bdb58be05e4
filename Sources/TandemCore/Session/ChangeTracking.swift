/// UIDocument.ChangeKind: how a change affects the count of unsaved changes.
public enum DocumentChangeKind: String, Sendable, Codable {
    case done, undone, redone, cleared
}

/// UIDocument's count of unsaved changes for one scope, with NSDocument's rule for a save
/// point that can no longer be reached: undone past the save, then changed anew, the count
/// never comes back to 0 before the next save (the arithmetic alone would say "clean" on a
/// text that was never saved).
public struct ChangeCounter: Sendable, Equatable {
    public internal(set) var count = 0
    /// Set by a change made while the count was below 0; cleared by a save.
    public internal(set) var savePointLost = false
    /// The steps of discardable groups since the save, which `count` leaves out (done and
    /// redone +1, undone −1): nonzero says the text may differ from the saved one with no
    /// step counted for it.
    public internal(set) var discarded = 0

    public init(count: Int = 0, savePointLost: Bool = false, discarded: Int = 0) {
        self.count = count
        self.savePointLost = savePointLost
        self.discarded = discarded
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

    /// A step of a discardable group: not counted, only remembered.
    mutating func discard(_ kind: DocumentChangeKind) {
        switch kind {
        case .done, .redone: discarded += 1
        case .undone: discarded -= 1
        case .cleared: self = ChangeCounter()
        }
    }
}

extension ChangeCounter: Codable {
    private enum CodingKeys: String, CodingKey { case count, savePointLost, discarded }

    /// `discarded` is absent from snapshots written before discardable groups were left out.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        count = try c.decode(Int.self, forKey: .count)
        savePointLost = try c.decode(Bool.self, forKey: .savePointLost)
        discarded = try c.decodeIfPresent(Int.self, forKey: .discarded) ?? 0
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(count, forKey: .count)
        try c.encode(savePointLost, forKey: .savePointLost)
        if discarded != 0 { try c.encode(discarded, forKey: .discarded) }
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

    /// The counter of `scope` (a new one for a session with no context).
    public func counter(_ scope: UndoScope) -> ChangeCounter {
        switch scope {
        case .document: document
        case .session(let s): contexts[s] ?? ChangeCounter()
        }
    }

    /// `discardable`: the step is a discardable group's, which no count includes.
    mutating func apply(_ kind: DocumentChangeKind, context: SessionID?, discardable: Bool = false) {
        if kind == .cleared {
            self = ChangeCounts()
            return
        }
        if discardable {
            document.discard(kind)
            if let context { contexts[context, default: ChangeCounter()].discard(kind) }
            return
        }
        document.apply(kind)
        if let context { contexts[context, default: ChangeCounter()].apply(kind) }
    }
}
