/// Why a document refused a request. Every case leaves the document unchanged.
public enum DocumentError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The base revision is older than the trimmed log, so it cannot be transformed (410).
    case revisionTrimmed(base: Int, firstAvailable: Int)
    /// The base revision does not exist yet (422).
    case revisionInFuture(base: Int, current: Int)
    /// The operation does not fit the text at its base revision (422).
    case invalidOperation(OperationError)
    /// Transforming `splices` through the `changes` since the base would be more work than
    /// `Document.maxRebaseWork` allows (422).
    case rebaseTooLarge(splices: Int, changes: Int, limit: Int)
    /// Undoing (redoing) the group would map it through `changes` later changes, more work
    /// than `Document.maxRebaseWork` allows (422). Only an open group closed on the way
    /// changes (as for `nothingToUndo`).
    case undoTooLarge(group: Int, changes: Int, limit: Int)
    case nothingToUndo
    case nothingToRedo
    /// endUndoGrouping without an open group (409).
    case noOpenGroup
    /// undo while nested groups are open: NSUndoManager only closes a group of level 1 (409).
    case groupOpen(level: Int)
    /// Every change is refused while editing is disabled (403).
    case editingDisabled
    /// enableUndoRegistration without a matching disableUndoRegistration (409), where
    /// NSUndoManager raises.
    case undoRegistrationNotDisabled
    /// A selective undo named a group in another session's stacks (403).
    case notYourGroup(id: Int)
    /// A selective undo named a group no stack holds (404).
    case groupNotFound(id: Int)
    /// A selective undo named a group of the caller's redo stack (409).
    case groupAlreadyUndone(id: Int)

    /// A stable snake_case code for API error bodies.
    public var code: String {
        switch self {
        case .revisionTrimmed: "revision_trimmed"
        case .revisionInFuture: "revision_in_future"
        case .invalidOperation: "invalid_operation"
        case .rebaseTooLarge: "rebase_too_large"
        case .undoTooLarge: "undo_too_large"
        case .nothingToUndo: "nothing_to_undo"
        case .nothingToRedo: "nothing_to_redo"
        case .noOpenGroup: "no_open_group"
        case .groupOpen: "group_open"
        case .editingDisabled: "editing_disabled"
        case .undoRegistrationNotDisabled: "undo_registration_not_disabled"
        case .notYourGroup: "not_your_group"
        case .groupNotFound: "group_not_found"
        case .groupAlreadyUndone: "nothing_to_undo"
        }
    }

    public var message: String {
        switch self {
        case let .revisionTrimmed(base, first):
            "base revision \(base) is no longer in the change log, which starts at revision \(first); fetch the text again"
        case let .revisionInFuture(base, current):
            "base revision \(base) does not exist yet; the document is at revision \(current)"
        case let .invalidOperation(error):
            error.description
        case let .rebaseTooLarge(splices, changes, limit):
            "transforming \(splices) splices through the \(changes) changes since the base revision is more than one edit may ask (\(limit) steps); send it on a newer base or in smaller parts"
        case let .undoTooLarge(group, changes, limit):
            "undoing group \(group) would map it through the \(changes) changes made since, more than one undo may ask (\(limit) steps)"
        case .nothingToUndo:
            "there is nothing to undo"
        case .nothingToRedo:
            "there is nothing to redo"
        case .noOpenGroup:
            "no undo group is open"
        case let .groupOpen(level):
            "\(level) nested undo groups are open; close them before undoing or redoing"
        case .editingDisabled:
            "editing is disabled for this document"
        case .undoRegistrationNotDisabled:
            "undo registration is not disabled: every enableUndoRegistration needs an earlier disableUndoRegistration"
        case let .notYourGroup(id):
            "undo group \(id) is another session's: a selective undo takes only a group of your own"
        case let .groupNotFound(id):
            "no undo stack holds a group \(id) (it may have been undone and dropped, or trimmed)"
        case let .groupAlreadyUndone(id):
            "undo group \(id) is already undone: it is on your redo stack"
        }
    }

    public var description: String { message }
}
