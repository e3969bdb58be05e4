/// An undo or redo as a client asked for it. The journal records it whole, so a replay
/// reverts the same group and names the same requester.
public struct UndoRequest: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable {
        case undo, redo
        /// NSUndoManager.undoNestedGroup: the last closed group, without closing an open one.
        case undoNestedGroup
    }

    public var kind: Kind
    public var scope: UndoScope
    /// The session that asked; nil for an anonymous request. With a `.session(s)` scope it is s.
    public var requester: SessionID?
    /// A selective undo: the id of a group of the requester's own undo stack, undone wherever
    /// it sits in the stack.
    public var group: Int?
    public var time: Double

    public init(_ kind: Kind, scope: UndoScope, requester: SessionID?, group: Int? = nil, time: Double) {
        self.kind = kind
        self.scope = scope
        self.requester = requester
        self.group = group
        self.time = time
    }
}

extension UndoScope {
    /// The session of a `.session` scope; nil for `.document`.
    public var sessionID: SessionID? {
        if case .session(let s) = self { return s }
        return nil
    }
}
