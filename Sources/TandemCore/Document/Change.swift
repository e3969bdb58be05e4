/// Identifies a session (an editing client) inside a document.
public typealias SessionID = String

/// What made a change.
public enum ChangeKind: String, Sendable, Codable {
    case edit, undo, redo
}

/// One entry of a document's change log.
public struct Change: Sendable {
    /// The revision this change created (the first change of a document is revision 1).
    public var revision: Int
    /// The session that made it (for an undo or redo: the one that asked for it, whoever's
    /// group it reverted); nil for anonymous changes.
    public var session: SessionID?
    public var kind: ChangeKind
    /// The undo group it belongs to, or -1 when it was not registered for undo.
    public var group: Int
    /// The name of that group ("Typing", "Bold", …); empty when it has none.
    public var actionName: String
    /// The operation as applied to the text at `revision - 1`.
    public var operation: TextOperation
    public var time: Double
    /// Where it landed in the resulting text; nil only for an identity operation.
    public var range: Range<Int>?
    /// For an undo (redo): the groups above the reverted one that it dropped, newest first,
    /// because others had already erased their whole effect. Empty for other changes.
    public var skipped: [SkippedGroup] = []
    /// For an undo (redo): the group it reverted. Nil for an edit.
    public var reverts: RevertedGroup?
    /// For an undo (redo): UTF-16 units of the group's effect it could not revert because
    /// later changes had already removed them (text the group inserted that others deleted).
    public var notReverted = 0
    /// True when the undo (redo) reverted only part of its group's effect.
    public var isPartial: Bool { notReverted > 0 }
    /// True for an edit that opened an automatic undo group (NSUndoManager's per-event group,
    /// outside any explicit group): the group opened and closed around it, so it is announced
    /// with didOpenUndoGroup, willCloseUndoGroup and didCloseUndoGroup. A change that joins a
    /// typing run or an explicit group opens none.
    public var opensAutomaticGroup = false

    public init(revision: Int, session: SessionID?, kind: ChangeKind, group: Int, actionName: String,
                operation: TextOperation, time: Double, range: Range<Int>?, skipped: [SkippedGroup] = [],
                reverts: RevertedGroup? = nil, notReverted: Int = 0) {
        self.revision = revision
        self.session = session
        self.kind = kind
        self.group = group
        self.actionName = actionName
        self.operation = operation
        self.time = time
        self.range = range
        self.skipped = skipped
        self.reverts = reverts
        self.notReverted = notReverted
    }
}

/// The group an undo (redo) reverted: whose context it was in and its stable id.
public struct RevertedGroup: Sendable, Equatable {
    /// The session whose undo context held the group; nil for the anonymous context.
    public var session: SessionID?
    /// The group's id, as `…/history` lists it.
    public var group: Int
}

/// An undo group an undo (redo) dropped unreverted: others had erased all it did.
public struct SkippedGroup: Sendable, Equatable {
    public var actionName: String
    /// The revision of its first change.
    public var revision: Int
}

/// How an edit is registered with the undo manager.
public struct EditOptions: Sendable, Hashable, Codable {
    /// Names the group the edit lands in; an explicit name also starts a new group.
    public var actionName: String?
    /// False applies the edit without registering it for undo.
    public var undoable: Bool
    /// True never coalesces the edit with the previous one.
    public var newGroup: Bool
    /// False keeps the edit from typing coalescing (it still joins an open explicit group).
    public var coalescing: Bool
    /// True marks the group the edit lands in as discardable (setActionIsDiscardable): outside
    /// an explicit group the edit starts a group of its own, which no typing joins; inside
    /// one it marks the open group.
    public var discardable: Bool

    public init(actionName: String? = nil, undoable: Bool = true, newGroup: Bool = false, coalescing: Bool = true,
                discardable: Bool = false) {
        self.actionName = actionName
        self.undoable = undoable
        self.newGroup = newGroup
        self.coalescing = coalescing
        self.discardable = discardable
    }
}

extension EditOptions {
    private enum CodingKeys: String, CodingKey { case actionName, undoable, newGroup, coalescing, discardable }

    /// `discardable` is absent from what was written before it existed.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(actionName: try c.decodeIfPresent(String.self, forKey: .actionName), undoable: try c.decode(Bool.self, forKey: .undoable),
                  newGroup: try c.decode(Bool.self, forKey: .newGroup), coalescing: try c.decode(Bool.self, forKey: .coalescing),
                  discardable: try c.decodeIfPresent(Bool.self, forKey: .discardable) ?? false)
    }
}
