/// Open event streams and long-polls hold no right of their own: they end when the session
/// they were opened with ends (logout, timeout, operator; here or on another node) and when
/// the share link they were opened with expires or is revoked (`DocumentAccess.accessChanged`
/// handles revocations and role changes).
extension SessionEnds {
    /// The session ended: its streams end and its long-polls are answered `401`, as its
    /// token now is.
    func endAccess(ofSession id: String) {
        for handle in handles.all() {
            let polls: [DocumentState.Poller] = handle.executor.sync { st in
                var out: [DocumentState.Poller] = []
                st.pollers.removeAll { p in
                    guard p.caller.session?.id == id else { return false }
                    out.append(p)
                    return true
                }
                return out
            }
            handle.events.close { $0.caller.session?.id == id }
            for p in polls { p.answer(.failed(.unauthorized)) }
        }
        pasteboards.events.close { $0.session == id }
    }

    /// A session's grants changed (renewed with another application token): its streams and
    /// long-polls of documents it may no longer read end (long-polls `404`, as the document
    /// now is to it), as a removed member's do.
    func grantsChanged(of session: Session) {
        for handle in handles.all() {
            let rules = handle.access.withLock { $0 }
            let shutOut: (Caller) -> Bool = { caller in
                guard caller.session?.id == session.id else { return false }
                var caller = caller
                caller.session = session
                let role = rules.role(of: caller, in: handle.id)
                return AccessPolicy.decide(.read, mode: rules.access, role: role, hasSession: true) != .allowed
            }
            let polls: [DocumentState.Poller] = handle.executor.sync { st in
                var out: [DocumentState.Poller] = []
                st.pollers.removeAll { p in
                    guard shutOut(p.caller) else { return false }
                    out.append(p)
                    return true
                }
                return out
            }
            handle.events.close { shutOut($0.caller) }
            for p in polls { p.answer(.failed(.notFound("document '\(handle.id)'"))) }
        }
    }

    /// Housekeeping: the streams and long-polls opened with a link that expired by `now` end
    /// (long-polls `401 invalid_link`, as the link is now), within a tick of its expiry.
    func endExpiredLinks(now: Double) {
        for handle in handles.all() {
            let rules = handle.access.withLock { $0 }
            let expired = Set(rules.links.lazy.filter { !$0.revoked && ($0.expires.map { $0 <= now } ?? false) }.map(\.id))
            guard !expired.isEmpty else { continue }
            let opened: (Caller) -> Bool = { caller in caller.link.map { expired.contains($0.linkID) } ?? false }
            let polls: [DocumentState.Poller] = handle.executor.sync { st in
                var out: [DocumentState.Poller] = []
                st.pollers.removeAll { p in
                    guard opened(p.caller) else { return false }
                    out.append(p)
                    return true
                }
                return out
            }
            handle.events.close { opened($0.caller) }
            for p in polls { p.answer(.failed(.invalidLink)) }
        }
    }
}
