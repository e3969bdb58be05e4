/// Who may read and who may edit a document that grants the caller no role (docs/API.md,
/// "Access"). `open` is the behaviour from before access modes existed.
enum AccessMode: String, Sendable, CaseIterable {
    /// Anyone reads and edits, anonymous callers included.
    case open
    /// Anyone reads; any session edits.
    case editable
    /// Anyone reads; the owner and editors edit.
    case locked
    /// Only the owner and members; to everyone else the document does not exist.
    case `private`

    /// Whether a viewer link grants anything here: only where a session may not edit by
    /// the address alone. On an `open` or `editable` document it would grant less than the
    /// address does (its holder edits anyway), so it is refused rather than mislead.
    var viewerLinksMeanSomething: Bool { self == .locked || self == .private }
}

/// What a caller may be in one document, lowest first.
enum Role: Int, Sendable, Comparable, CaseIterable {
    case viewer = 1
    case editor = 2
    case owner = 3

    init?(name: String) {
        switch name {
        case "viewer": self = .viewer
        case "editor": self = .editor
        case "owner": self = .owner
        default: return nil
        }
    }

    var name: String {
        switch self {
        case .viewer: "viewer"
        case .editor: "editor"
        case .owner: "owner"
        }
    }

    static func < (a: Role, b: Role) -> Bool { a.rawValue < b.rawValue }
}
