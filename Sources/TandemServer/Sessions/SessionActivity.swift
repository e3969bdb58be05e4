import Foundation
import Logging
import Synchronization
import TandemStore

/// Sessions apart from the requests they make: a session's end, stored before it counts;
/// housekeeping's sweeps (idle sessions, expired application tokens, users removed from the
/// store); and the activity written back so that sessions survive a restart with their real
/// idle time.
final class SessionActivity: Sendable {
    let configuration: ServerConfiguration
    let service: DocumentService
    let store: any DocumentStore
    let sessions: SessionRegistry
    let pasteboards: PasteboardRegistry
    let logger: Logger
    /// The users generation last seen (`endSessionsOfRemovedUsers`); nil while there is none.
    private let usersGeneration: Mutex<[UInt8]?>

    init(configuration: ServerConfiguration, service: DocumentService, store: any DocumentStore, sessions: SessionRegistry,
         pasteboards: PasteboardRegistry, logger: Logger) {
        self.configuration = configuration
        self.service = service
        self.store = store
        self.sessions = sessions
        self.pasteboards = pasteboards
        self.logger = logger
        usersGeneration = Mutex((try? store.meta(Accounts.generationKey)) ?? nil)
    }

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
            service.sessionEnds.storeSessionEnd(s.id, rollBack: false) { [self] result in
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

    /// Ends a session everywhere (see `storeSessionEnd`); `then` is called only once the end
    /// is stored: refused, the session goes on as before, token and undo groups included.
    func endSession(_ id: String, then: @escaping @Sendable (Result<Void, APIError>) -> Void) {
        // Out of the registry first: no request of it starts while its end is stored.
        guard let removed = sessions.removeReinstatable(id: id) else { return then(.success(())) }
        service.sessionEnds.storeSessionEnd(id, rollBack: true) { [self] result in
            if case .failure(let error) = result {
                sessions.reinstate(removed)
                logger.error("could not store the end of session \(id): \(error)")
                return then(.failure(.storageFailing))
            }
            then(.success(()))
        }
    }

    /// When the users generation changed (an account removed or its password changed, by
    /// `tandem user` or on another node), ends here every session of a user that the store no
    /// longer holds. Runs on housekeeping, about once a second: one meta read when nothing changed.
    func endSessionsOfRemovedUsers() {
        let generation: [UInt8]?
        do { generation = try store.meta(Accounts.generationKey) } catch { return }
        let changed = usersGeneration.withLock { last -> Bool in
            defer { last = generation }
            return last != generation
        }
        guard changed, let stored = try? Set(store.sessions().map(\.id)) else { return }
        for session in sessions.userSessions where !stored.contains(session.id) {
            endSession(session.id) { [logger] result in
                if case .failure(let error) = result { logger.warning("could not end session \(session.id): \(error)") }
            }
        }
    }
}
