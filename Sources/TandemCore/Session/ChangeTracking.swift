/// UIDocument.ChangeKind: how a change affects the count of unsaved changes.
public enum DocumentChangeKind: String, Sendable, Codable {
    case done, undone, redone, cleared
}

extension Document {
    /// Applies a change-count step, as UIDocument.updateChangeCount: done and redone count
    /// up, undone counts down, cleared (after a save) resets to zero.
    public func updateChangeCount(_ kind: DocumentChangeKind) {
        countChange(kind)
        log.journal?(.updateChangeCount(kind))
    }

    func countChange(_ kind: DocumentChangeKind) {
        switch kind {
        case .done, .redone: changeCount += 1
        case .undone: changeCount -= 1
        case .cleared: changeCount = 0
        }
    }

    public var hasUnsavedChanges: Bool { changeCount != 0 }
}
