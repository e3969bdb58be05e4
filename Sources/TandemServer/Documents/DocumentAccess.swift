import Foundation
import Synchronization
import TandemCore
import TandemStore

/// A change to a document's members or links (its mode and owner change with `DocumentPatch`).
enum AccessChange: Sendable {
    case grant(session: String, role: Role)
    /// To a person as `Session.person` names them (a user found by name).
    case grantPerson(String, role: Role)
    case revokeMember(session: String)
    case addLink(ShareLink)
    case revokeLink(id: String)
}

/// Where a share link belongs: its document and the link as stored there.
struct IndexedLink: Sendable {
    var documentID: String
    var link: ShareLink
}

/// Who may do what with a document: its members and share links, changed and stored here,
/// and what follows in memory once they are stored (the link index, and the streams and
/// long-polls of callers who may no longer read it end).
///
/// It promises: rules change in memory only once stored, in the document's `checkpoints`
/// order; a link works from the moment its rules are stored until it expires or is revoked.
struct DocumentAccess: Sendable {
    typealias Completion<Result: Sendable> = DocumentService.Completion<Result>

    let handles: DocumentHandles
    let store: any DocumentStore
    let sessions: SessionRegistry
    let persistence: DocumentPersistence
    let delivery: @Sendable () -> Delivery

    func now() -> Double { Date().timeIntervalSince1970 }

    /// The document's access rules as its owner sees them.
    func accessRules(of handle: DocumentHandle) -> AccessRules {
        handle.access.withLock { $0 }
    }

    /// Grants or revokes a member's role, adds or revokes a share link: stored first (with the
    /// document's lock released, in the document's `checkpoints` order), then applied; the
    /// event streams of callers who may no longer read it end.
    func changeAccess(_ change: AccessChange, of handle: DocumentHandle, completion: @escaping Completion<AccessRules>) {
        handle.checkpoints.run { [self] done in
            let finish: Completion<AccessRules> = { result in
                done()
                completion(result)
            }
            let submitted: Swift.Result<(AccessRules, StoreTicket), APIError> = handle.executor.sync { st in
                if st.deleted { return .failure(st.goneError(handle.id)) }
                var next = st
                do throws(APIError) { try Self.apply(change, to: &next.access, sessions: sessions, now: now()) } catch { return .failure(error) }
                let stored = StoredDocument(id: handle.id, title: st.title, created: st.created, modified: st.modified,
                                            metadata: DocumentMetadata(next).encoded)
                let ticket = StoreTicket()
                store.submit([.updateDocument(stored)], delivery: delivery()) { ticket.finish($0) }
                return .success((next.access, ticket))
            }
            let (rules, ticket): (AccessRules, StoreTicket)
            switch submitted {
            case .failure(let error): return finish(.failure(error))
            case .success(let s): (rules, ticket) = s
            }
            persistence.whenStored(ticket, of: handle, journaled: false, doing: "change access to") { [self] result in
                if case .failure(let error) = result { return finish(.failure(error)) }
                accessChanged(handle, to: rules)
                finish(.success(rules))
            }
        }
    }

    /// Memory takes stored rules: the link index follows, and streams that may no longer read end.
    func accessChanged(_ handle: DocumentHandle, to rules: AccessRules) {
        let now = now()
        let mayNotRead: (Caller) -> Bool = { caller in
            var caller = caller
            if let presented = caller.link {
                // What was opened with a link ends with the link.
                guard let link = rules.links.first(where: { $0.id == presented.linkID }), link.isValid(at: now) else { return true }
                caller.link?.role = link.role
            }
            let role = rules.role(of: caller, in: handle.id)
            return AccessPolicy.decide(.read, mode: rules.access, role: role, hasSession: caller.session != nil) != .allowed
        }
        let shutOut: [DocumentState.Poller] = handle.executor.sync { st in
            guard !st.deleted else { return [] }
            st.access = rules
            handle.access.withLock { $0 = rules }
            let gone = st.pollers.filter { mayNotRead($0.caller) }
            st.pollers.removeAll { mayNotRead($0.caller) }
            return gone
        }
        handles.indexLinks(of: handle.id, rules)
        handle.events.close { mayNotRead($0.caller) }
        for p in shutOut { p.answer(.failed(.notFound("document '\(handle.id)'"))) }
        // Those still watching learn the rules changed (their role may have): they ask the
        // document what they may do now.
        var w = JSONWriter(capacity: 64)
        w.beginObject()
        w.key("access"); w.string(rules.access.rawValue)
        w.key("owner"); w.optionalString(rules.owner)
        w.endObject()
        let revision = handle.executor.sync { $0.committedRevision }
        handle.events.send(ServerSentEvents.frame(id: revision, event: "access", data: w.bytes))
    }

    private static func add(_ person: String, _ role: Role, to rules: inout AccessRules) throws(APIError) {
        guard role != .owner else { throw .invalidField("role", "must be editor or viewer: give ownership with PATCH {\"owner\"}") }
        guard rules.members[person] != nil || rules.members.count < AccessRules.maxMembers else {
            throw .conflict("too_many_members", "a document has at most \(AccessRules.maxMembers) members")
        }
        rules.members[person] = role
    }

    private static func apply(_ change: AccessChange, to rules: inout AccessRules, sessions: SessionRegistry, now: Double) throws(APIError) {
        switch change {
        case .grant(let session, let role):
            // Granted to the session's person: to a user, it outlives the session.
            guard let granted = sessions.session(id: session) else { throw .unknownSession(session) }
            try add(granted.person, role, to: &rules)
        case .grantPerson(let person, let role):
            try add(person, role, to: &rules)
        case .revokeMember(let session):
            // By the member's key, or by a live session of that person.
            let person = sessions.session(id: session)?.person
            let removed = [rules.members.removeValue(forKey: session), person.flatMap { rules.members.removeValue(forKey: $0) }]
            guard removed.contains(where: { $0 != nil }) else {
                throw APIError(.notFound, "member_not_found", "session '\(session)' has no role in this document")
            }
        case .addLink(let link):
            guard link.role != .viewer || rules.access.viewerLinksMeanSomething else { throw .viewerLinkGrantsLess(rules.access) }
            // Only working links count; dead ones (revoked, expired) make room, oldest first,
            // so the list `GET …/access` shows stays bounded too.
            guard rules.links.count(where: { $0.isValid(at: now) }) < AccessRules.maxLinks else {
                throw .conflict("too_many_links", "a document has at most \(AccessRules.maxLinks) working share links")
            }
            while rules.links.count >= AccessRules.maxLinks, let dead = rules.links.firstIndex(where: { !$0.isValid(at: now) }) {
                rules.links.remove(at: dead)
            }
            rules.links.append(link)
        case .revokeLink(let id):
            guard let i = rules.links.firstIndex(where: { $0.id == id }) else {
                throw APIError(.notFound, "link_not_found", "no share link '\(id)' in this document")
            }
            rules.links[i].revoked = true
        }
    }
}
