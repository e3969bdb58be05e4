
/// What a route needs of the caller in the document it names (the rows of the table in
/// docs/API.md, "Access").
enum Permission: Sendable, Equatable {
    /// The document, its text, history, events, versions; copy and selection.
    case read
    /// Changing the text, undoing and redoing one's own changes, groups.
    case edit
    /// The title: what the document is listed and found by, so only people the owner named
    /// (editors) and the owner change it, whatever the mode lets everyone else edit.
    case rename
    /// A session's own undo history (naming, capping, clearing it): its own business.
    case ownHistory
    /// Undo and redo of anyone's change (`scope=document`), naming anyone's group.
    case othersWork
    /// Deleting the document, its mode, owner, secure flag, everyone's history, members, links.
    case owner
}

/// The one decision of who may do what; a pure function of the mode, the caller's role and
/// whether it has a session.
enum AccessPolicy {
    enum Decision: Sendable, Equatable {
        case allowed
        /// The caller may not know the document exists: answered as an unknown id is.
        case hidden
        case refused(APIError)
    }

    static func decide(_ permission: Permission, mode: AccessMode, role: Role?, hasSession: Bool) -> Decision {
        if mode == .private && role == nil { return .hidden }
        switch permission {
        case .read, .ownHistory:
            return .allowed
        case .edit:
            switch mode {
            case .open: return .allowed
            case .editable: return hasSession || role.map({ $0 >= .editor }) == true ? .allowed : .refused(readOnly)
            case .locked, .private: return role.map({ $0 >= .editor }) == true ? .allowed : .refused(readOnly)
            }
        case .rename:
            return role.map({ $0 >= .editor }) == true ? .allowed : .refused(notRenamer)
        case .othersWork:
            return mode == .open || role.map({ $0 >= .editor }) == true ? .allowed : .refused(notEditor)
        case .owner:
            return role == .owner ? .allowed : .refused(notOwner)
        }
    }

    static let readOnly = APIError(.forbidden, "read_only", "you may read this document but not change it")
    static let notEditor = APIError(.forbidden, "forbidden", "only the owner and editors may change others' work in this document")
    static let notRenamer = APIError(.forbidden, "forbidden", "only the owner and editors may rename this document")
    static let notOwner = APIError(.forbidden, "forbidden", "only the document's owner may do this")
}
