import Foundation
import Synchronization

/// Live sessions. A token is `<session id>.<secret>`: the id finds the session, and the
/// secret's SHA-256 is compared in constant time with the stored hash.
public final class SessionRegistry: Sendable {
    public enum AuthError: Error, Equatable {
        case malformed
        case unknownOrExpired
    }

    private let sessions = Mutex<[String: Session]>([:])
    /// The `lastSeen` the store holds for each session: activity is written back coarsely,
    /// off the request path, by `lastSeenToStore`.
    private let stored = Mutex<[String: Double]>([:])
    private let palette = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4",
                           "#f032e6", "#469990", "#9a6324", "#800000", "#808000", "#000075"]
    private let counter = Mutex(0)
    /// Users' display names by id, for naming members none of whose sessions is live.
    private let userNames = Mutex<[String: String]>([:])
    static let userNamesKept = 100_000

    public init(restoring: [Session] = []) {
        sessions.withLock { s in for session in restoring { s[session.id] = session } }
        stored.withLock { t in for session in restoring { t[session.id] = session.lastSeen } }
    }

    /// Creates a session; returns it and the bearer token, which is shown only this once.
    public func create(name: String?, userID: String? = nil, userName: String? = nil, now: Double) -> (Session, token: String) {
        create(name: name, userID: userID, userName: userName, now: now, expires: nil, grants: DocumentGrants())
    }

    /// `create`, for a session an application's token starts: it ends at `expires`.
    func create(name: String?, userID: String?, userName: String?, now: Double, expires: Double?,
                grants: DocumentGrants) -> (Session, token: String) {
        let id = "s_" + Secrets.base64url(Secrets.randomBytes(9))
        let secret = Secrets.randomBytes(32)
        let n = counter.withLock { c in c += 1; return c }
        var session = Session(
            id: id,
            name: name ?? "Guest \(n)",
            color: palette[(n - 1) % palette.count],
            created: now,
            lastSeen: now,
            tokenHash: Secrets.sha256(secret),
            userID: userID,
            userName: userName
        )
        session.expires = expires
        session.grants = grants
        sessions.withLock { $0[id] = session }
        stored.withLock { $0[id] = now }
        if let userID { noteUser(id: userID, displayName: session.name) }
        return (session, id + "." + Secrets.base64url(secret))
    }

    /// The session a bearer token stands for, touching its last-seen time.
    public func authenticate(token: String, now: Double) throws(AuthError) -> Session {
        // By bytes: a Character search would run grapheme breaking to find an ASCII dot.
        let utf8 = token.utf8
        guard let dot = utf8.firstIndex(of: UInt8(ascii: ".")), dot != utf8.startIndex else { throw .malformed }
        let id = String(token[..<dot])
        guard let secret = Self.base64urlDecode(token[utf8.index(after: dot)...]), secret.count == 32 else {
            throw .malformed
        }
        let hash = Secrets.sha256(secret)
        let found: Session? = sessions.withLock { s in
            // One look-up, and the time updated in place.
            guard let index = s.index(forKey: id), Secrets.constantTimeEqual(s.values[index].tokenHash, hash),
                  !s.values[index].hasExpired(at: now) else { return nil }
            s.values[index].lastSeen = now
            return s.values[index]
        }
        guard let found else { throw .unknownOrExpired }
        return found
    }

    public func session(id: String) -> Session? { sessions.withLock { $0[id] } }

    /// The name a person (`Session.person`) goes by: a guest session's, or a user's as one of
    /// their live sessions shows it; nil when none is live.
    public func name(ofPerson person: String) -> String? {
        if let session = session(id: person) { return session.name }
        guard person.hasPrefix(Session.userPrefix) else { return nil }
        let user = String(person.dropFirst(Session.userPrefix.count))
        return sessions.withLock { $0.values.first { $0.userID == user }?.name } ?? userNames.withLock { $0[user] }
    }

    /// Remembers a user's display name (read at start-up, at sign-in, when shared with by
    /// name), so that a member is named while none of their sessions is live.
    public func noteUser(id: String, displayName: String) {
        userNames.withLock { names in
            if names.count >= Self.userNamesKept, names[id] == nil { names.removeAll(keepingCapacity: true) }
            names[id] = displayName
        }
    }

    /// The live sessions that belong to users (for `SessionActivity.endSessionsOfRemovedUsers`).
    public var userSessions: [Session] { sessions.withLock { $0.values.filter { $0.userID != nil } } }

    /// A session as another node stored it (created or renamed there): its activity here is
    /// kept if newer.
    public func refresh(_ session: Session) {
        sessions.withLock { s in
            var fresh = session
            if let known = s[session.id] { fresh.lastSeen = max(known.lastSeen, session.lastSeen) }
            s[session.id] = fresh
        }
        stored.withLock { t in t[session.id] = max(t[session.id] ?? 0, session.lastSeen) }
    }

    /// Gives a live session its renewed token's grants and expiry; nil when it has ended
    /// meanwhile (or expired: a renewal comes too late once the old token is past).
    func renew(id: String, grants: DocumentGrants, expires: Double, now: Double) -> Session? {
        sessions.withLock { s in
            guard let old = s[id], !old.hasExpired(at: now) else { return nil }
            s[id]!.grants = grants
            s[id]!.expires = expires
            return s[id]
        }
    }

    /// Gives a live session a new name; nil when it has ended meanwhile.
    public func rename(id: String, to name: String) -> Session? {
        sessions.withLock { s in
            guard s[id] != nil else { return nil }
            s[id]!.name = name
            return s[id]
        }
    }

    public var all: [Session] { sessions.withLock { Array($0.values) } }
    public var count: Int { sessions.withLock { $0.count } }

    @discardableResult
    public func remove(id: String) -> Session? {
        removeReinstatable(id: id)?.session
    }

    /// A removed session with the `lastSeen` the store holds for it, to put back as it was.
    public struct Removed: Sendable {
        let session: Session
        let storedLastSeen: Double?
    }

    /// `remove`, keeping what `reinstate` needs if the store then refuses the session's end.
    public func removeReinstatable(id: String) -> Removed? {
        let storedLastSeen = stored.withLock { $0.removeValue(forKey: id) }
        return sessions.withLock { $0.removeValue(forKey: id) }.map { Removed(session: $0, storedLastSeen: storedLastSeen) }
    }

    /// Puts back a session whose end the store refused: its token works again.
    public func reinstate(_ removed: Removed) {
        sessions.withLock { $0[removed.session.id] = removed.session }
        if let seen = removed.storedLastSeen { stored.withLock { $0[removed.session.id] = seen } }
    }

    /// Marks the sessions as active now (an open event stream is activity too).
    public func touch<S: Sequence>(_ ids: S, now: Double) where S.Element == String {
        sessions.withLock { s in
            for id in ids where s[id] != nil { s[id]!.lastSeen = max(s[id]!.lastSeen, now) }
        }
    }

    /// The sessions whose activity the store lags by at least `interval` seconds (or by any
    /// amount when `interval` is 0), with their current `lastSeen`; they count as stored
    /// from now on. Restarting loses at most `interval` of a session's activity.
    public func lastSeenToStore(interval: Double) -> [String: Double] {
        let current = sessions.withLock { s in s.mapValues(\.lastSeen) }
        return stored.withLock { t in
            var due: [String: Double] = [:]
            for (id, seen) in current {
                guard let had = t[id], seen > had, seen - had >= interval else { continue }
                due[id] = seen
                t[id] = seen
            }
            return due
        }
    }

    /// Puts back entries `lastSeenToStore` handed out but the store could not save.
    public func lastSeenNotStored(_ failed: [String: Double]) {
        stored.withLock { t in
            for (id, seen) in failed where t[id] == seen { t[id] = 0 }
        }
    }

    /// Removes and returns the sessions idle for longer than `timeout`, and those whose
    /// application token expired by `now`.
    public func expire(now: Double, timeout: Double) -> [Session] {
        let gone = sessions.withLock { s in
            let gone = s.values.filter { now - $0.lastSeen > timeout || $0.hasExpired(at: now) }
            for g in gone { s.removeValue(forKey: g.id) }
            return gone
        }
        for g in gone { stored.withLock { _ = $0.removeValue(forKey: g.id) } }
        return gone
    }

    static func base64urlDecode<S: StringProtocol>(_ s: S) -> [UInt8]? {
        // Over contiguous bytes: a substring's UTF8View went through generic index steps.
        if let decoded = s.utf8.withContiguousStorageIfAvailable({ base64urlDecode(bytes: $0) }) { return decoded }
        return Array(s.utf8).withUnsafeBufferPointer { base64urlDecode(bytes: $0) }
    }

    private static func base64urlDecode(bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 3 / 4)
        var acc: UInt32 = 0
        var bits = 0
        for c in bytes {
            let v: UInt32
            switch c {
            case 65...90: v = UInt32(c - 65)
            case 97...122: v = UInt32(c - 71)
            case 48...57: v = UInt32(c + 4)
            case UInt8(ascii: "-"): v = 62
            case UInt8(ascii: "_"): v = 63
            default: return nil
            }
            acc = acc << 6 | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
            }
        }
        // Canonical spelling only: the bits past the last byte are zero, and no character is
        // left over with fewer than 8 bits of its own (a secret has exactly one spelling).
        guard bits < 6, acc & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }
}
