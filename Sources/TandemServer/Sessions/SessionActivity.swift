import Foundation

extension ServerContext {
    /// How stale the stored `lastSeen` may get: a minute, or less under a short timeout so
    /// that a restart cannot end a session that was active within its timeout.
    var lastSeenStoreInterval: Double { min(60, configuration.sessionTimeout / 4) }

    /// Housekeeping: an open event stream keeps its session alive, however long it stays
    /// quiet; then idle sessions end, and those whose application token expired.
    func sweepSessions(now: Double) {
        var streaming = pasteboards.events.sessions
        for handle in service.documents.withLock({ Array($0.values) }) { streaming.formUnion(handle.events.sessions) }
        sessions.touch(streaming, now: now)
        if service.replication.shared {
            // Activity on other nodes reaches the store only: ask it before ending a session.
            let timeout = configuration.sessionTimeout
            for s in sessions.all where now - s.lastSeen > timeout {
                if let stored = try? store.session(s.id) {
                    sessions.touch([s.id], now: stored.lastSeen)
                } else {
                    // Unreadable or gone: leave it to the next sweep (or to the feed).
                    sessions.touch([s.id], now: now - timeout)
                }
            }
            // A renewal on another node may not have reached here yet: the store has it.
            for s in sessions.all where s.hasExpired(at: now) {
                if let stored = try? store.session(s.id), let expires = stored.expires, expires > now {
                    sessions.refresh(Session(stored, userName: s.userName))
                }
            }
        }
        for s in sessions.expire(now: now, timeout: configuration.sessionTimeout) {
            logger.info("session \(s.id) expired")
            // Not an answer to anyone: a refused end is logged, and after a restart the
            // session, still stored, expires again.
            service.storeSessionEnd(s.id, rollBack: false) { [self] result in
                if case .failure(let error) = result {
                    logger.warning("could not store the end of expired session \(s.id): \(error)")
                }
            }
        }
    }

    /// Writes back the activity the store lags behind by `interval` or more, in one
    /// transaction, so that sessions survive a restart with their real idle time.
    func storeSessionActivity(interval: Double) {
        let due = sessions.lastSeenToStore(interval: interval)
        guard !due.isEmpty else { return }
        do {
            try store.updateSessionsLastSeen(due)
        } catch {
            sessions.lastSeenNotStored(due)
            logger.warning("could not store session activity: \(error)")
        }
    }
}
