import Synchronization
import TandemCore

/// The open documents by id, and their share links by id: what requests find.
///
/// A handle is here from the moment it is published (once stored, or loaded) until it is
/// forgotten (deleted here or on another node); the link index follows each document's
/// rules, so a link works exactly while its document is open and the link is in its rules.
final class DocumentHandles: Sendable {
    private let byID = Mutex<[String: DocumentHandle]>([:])
    /// Every document's share links by id, for `verifyLink` (kept in step with their rules).
    private let links = Mutex<[String: IndexedLink]>([:])
    /// Open event streams over all documents (a metrics gauge).
    let subscribers = SharedCount()
    /// How long a stream gathers frames before it writes them, in seconds.
    private let coalescing: Double

    init(eventCoalescingMilliseconds: Double) {
        coalescing = eventCoalescingMilliseconds / 1000
    }

    /// The open documents by id, for a look that takes more than one (`find`, `all`).
    func withLock<Result: Sendable>(_ body: (inout [String: DocumentHandle]) -> Result) -> Result {
        byID.withLock { body(&$0) }
    }

    /// The open document with this id; `404` otherwise.
    func handle(_ id: String) throws(APIError) -> DocumentHandle {
        guard let d = byID.withLock({ $0[id] }) else { throw .notFound("document '\(id)'") }
        return d
    }

    /// The open document with this id, if any.
    func find(_ id: String) -> DocumentHandle? { byID.withLock { $0[id] } }

    /// Every open document, in no order.
    func all() -> [DocumentHandle] { byID.withLock { Array($0.values) } }

    /// The open documents where the session is present: watching, or with a selection.
    func present(session id: String) -> [DocumentHandle] {
        all().filter { h in h.events.sessions.contains(id) || h.executor.sync { $0.document.selection(for: id) != nil } }
    }

    /// A new document's event channel, counted in `subscribers`.
    func makeEventChannel() -> EventChannel {
        EventChannel(coalescing: coalescing) { [self] delta in subscribers.add(delta) }
    }

    /// A document just stored: found by requests from now on, unless one with its id was
    /// published meanwhile (then false, and nothing changes).
    func publish(_ handle: DocumentHandle, rules: AccessRules) -> Bool {
        let inserted = byID.withLock { docs -> Bool in
            if docs[handle.id] != nil { return false }
            docs[handle.id] = handle
            return true
        }
        if inserted { indexLinks(of: handle.id, rules) }
        return inserted
    }

    /// A document loaded from the store (at start-up, or created by another node).
    func install(_ handle: DocumentHandle, rules: AccessRules) {
        byID.withLock { $0[handle.id] = handle }
        indexLinks(of: handle.id, rules)
    }

    /// The document is gone: marked deleted, no longer found, its long-polls answered `404`,
    /// its streams ended and its links forgotten.
    func forget(_ handle: DocumentHandle) {
        let id = handle.id
        let pollers: [DocumentState.Poller] = handle.executor.sync { st in
            st.deleted = true
            defer { st.pollers.removeAll() }
            return st.pollers
        }
        byID.withLock { _ = $0.removeValue(forKey: id) }
        for p in pollers { p.answer(.failed(.notFound("document '\(id)'"))) }
        handle.events.closeAll()
        forgetLinks(of: id)
    }

    /// The document moved to another node (its lease did): no longer found here, its
    /// long-polls answered `503` to try again, its streams ended (a client reconnects with
    /// `Last-Event-ID` and reaches the owner). Its links stay known: it still exists.
    func release(_ handle: DocumentHandle) {
        guard byID.withLock({ $0[handle.id] === handle ? $0.removeValue(forKey: handle.id) : nil }) != nil else { return }
        retire(handle)
    }

    /// A copy no longer found (released, or replaced by a fresh load): what waited on it is
    /// `503 document_moved`, its streams end.
    func retire(_ handle: DocumentHandle) {
        let pollers: [DocumentState.Poller] = handle.executor.sync { st in
            st.deleted = true
            st.moved = true
            defer { st.pollers.removeAll() }
            return st.pollers
        }
        for p in pollers { p.answer(.failed(.documentMoved)) }
        handle.events.closeAll()
    }

    /// Moves an idle document to another node (its lease follows the balancer's hash): under
    /// its executor, only with nothing in flight, nobody watching or polling, and no change for
    /// `idle` seconds, `handOver` gives the lease away; then the document leaves memory as
    /// `release` says. False if it stays.
    func moveOut(_ handle: DocumentHandle, idle: Double, now: Double, handOver: () -> Bool) -> Bool {
        let moved = handle.executor.sync { st -> Bool in
            guard !st.deleted, st.inFlight.isEmpty, st.pollers.isEmpty, handle.events.count == 0,
                  now - st.modified >= idle, handOver() else { return false }
            st.moved = true
            return true
        }
        if moved { release(handle) }
        return moved
    }

    /// `forget`, unless another document has taken the id since (deleted and created again).
    func forgetIfCurrent(_ handle: DocumentHandle) {
        guard byID.withLock({ $0[handle.id] === handle }) else { return }
        forget(handle)
    }

    /// Indexes the links of a document's rules (start-up, and after every change of them).
    func indexLinks(of id: String, _ rules: AccessRules) {
        links.withLock { index in
            for (key, entry) in index where entry.documentID == id && !rules.links.contains(where: { $0.id == key }) {
                index.removeValue(forKey: key)
            }
            for link in rules.links { index[link.id] = IndexedLink(documentID: id, link: link) }
        }
    }

    func forgetLinks(of id: String) {
        links.withLock { index in index = index.filter { $0.value.documentID != id } }
    }

    /// The link a token names, if it is valid at `now`; `401 invalid_link` otherwise, whatever
    /// the reason (unknown, revoked, expired, malformed), so a token tells nothing.
    func verifyLink(_ token: String, now: Double) throws(APIError) -> Caller.PresentedLink {
        guard let (id, hash) = ShareLink.parse(token), let entry = links.withLock({ $0[id] }),
              Secrets.constantTimeEqual(entry.link.tokenHash, hash), entry.link.isValid(at: now)
        else { throw .invalidLink }
        return Caller.PresentedLink(documentID: entry.documentID, linkID: id, role: entry.link.role)
    }
}
