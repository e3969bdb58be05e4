import TandemCore

/// A document's owner, mode, members and share links, stored with its metadata
/// (`DocumentMetadata`) and changed only by its owner (or the operator).
struct AccessRules: Sendable, Equatable {
    var access: AccessMode
    /// The person who created the document (or was given it), as `Session.person` names
    /// people: a user (`user:<id>`), which outlives every session, or a guest session's id;
    /// nil for one made anonymously.
    var owner: String?
    /// Roles granted to people (as `owner` names them): `editor` or `viewer`.
    var members: [String: Role] = [:]
    var links: [ShareLink] = []

    static let maxLinks = 100
    static let maxMembers = 1_000

    init(access: AccessMode, owner: String?) {
        self.access = access
        self.owner = owner
    }

    /// The caller's role here: the highest its person, its session (rules made before a
    /// session's user was known name the session), its application token's grants, its
    /// link and the operator key give.
    func role(of caller: Caller, in documentID: String) -> Role? {
        if caller.isOperator { return .owner }
        var role: Role?
        if let session = caller.session {
            let person = session.person
            if person == owner || session.id == owner { return .owner }
            role = [members[person], members[session.id], session.grants.role(in: documentID)].compactMap { $0 }.max()
        }
        if let link = caller.link, link.documentID == documentID {
            role = max(role ?? link.role, link.role)
        }
        return role
    }
}

/// Who is asking, as the credentials it presented were verified (docs/API.md, "Access").
struct Caller: Sendable {
    /// A share link presented with the request, valid when it was checked.
    struct PresentedLink: Sendable {
        var documentID: String
        var linkID: String
        var role: Role
    }

    var session: Session?
    var link: PresentedLink?
    var isOperator = false
    /// Another node of the cluster (`Tandem-Peer-Key`): it may do what the operator may.
    var isPeer = false

    static let anonymous = Caller()
}
