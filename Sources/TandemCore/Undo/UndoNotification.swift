/// NSUndoManager's notifications, delivered to observers synchronously.
public struct UndoNotification: Sendable, Hashable {
    public enum Name: String, Sendable, Hashable {
        case checkpoint, willUndo, didUndo, willRedo, didRedo
        case didOpenUndoGroup, willCloseUndoGroup, didCloseUndoGroup
    }

    public var name: Name
    public var scope: UndoScope

    public init(name: Name, scope: UndoScope) {
        self.name = name
        self.scope = scope
    }
}

/// Returned by addObserver; pass it to removeObserver.
public struct ObserverToken: Sendable, Hashable {
    let id: Int
}
