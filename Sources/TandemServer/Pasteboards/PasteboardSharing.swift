import TandemCore

/// Who besides its owner reads and writes a named pasteboard (`shared` in `POST` and `PATCH
/// /pasteboards`): nobody, everyone who may use the server, or some people, named by sign-in
/// name in requests and kept as people (`Session.person`).
enum PasteboardSharing: Sendable, Equatable {
    case nobody
    case everyone
    case people(Set<String>)

    /// The most people a pasteboard is shared with.
    static let maxPeople = 100

    func apply(to p: inout Pasteboard) {
        switch self {
        case .nobody: (p.sharedWithEveryone, p.sharedWith) = (false, [])
        case .everyone: (p.sharedWithEveryone, p.sharedWith) = (true, [])
        case .people(let people): (p.sharedWithEveryone, p.sharedWith) = (false, people)
        }
    }

    /// How a pasteboard's JSON says it: "none", "everyone" or "people".
    static func name(of p: Pasteboard) -> String {
        p.sharedWithEveryone ? "everyone" : p.sharedWith.isEmpty ? "none" : "people"
    }
}
