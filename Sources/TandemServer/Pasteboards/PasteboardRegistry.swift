import Logging
import Synchronization
import TandemCore
import TandemStore

/// Every pasteboard. Two locks: `boards` guards the map and is held only for a moment (never
/// while waiting for anything), so readers and the store's writer thread may take it;
/// `writing` lets one writer at a time read, store and install a pasteboard, and is held
/// across the store write. Persistent pasteboards are written to the store before memory
/// changes: a write the store refuses changes nothing. Events are published under
/// `writing`, so subscribers hear the writes in the order they happened.
///
/// Lock order: `writing`, then a document's lock (a cut), then `boards`. A document's lock
/// is never held while taking `writing`: its holder would wait for the store, and the
/// store's writer waits for document locks to publish commits.
final class PasteboardRegistry: Sendable {
    let limits: PasteboardLimits
    /// Pasteboards one session may own at once.
    let maxPerSession: Int
    /// `GET /pasteboards/events`.
    let events: EventChannel
    private let store: any DocumentStore
    private let boards = Mutex<[String: Pasteboard]>([Pasteboard.generalName: .general()])
    private let writing = Mutex<Void>(())

    typealias Publish = (PasteboardEvent) -> Void

    init(store: any DocumentStore, limits: PasteboardLimits, maxPerSession: Int = 100, events: EventChannel = EventChannel()) {
        self.store = store
        self.limits = limits
        self.maxPerSession = maxPerSession
        self.events = events
    }

    /// Limits that a write can reach over HTTP: a representation at the limit still fits in
    /// a request body, raw or base64 in JSON (4/3 as long, plus a little JSON around it),
    /// so one beyond it is `413 pasteboard_too_large`, not a body refused before reading.
    static func limits(_ wanted: PasteboardLimits, maxBodyBytes: Int) -> PasteboardLimits {
        var l = wanted
        l.maxRepresentationBytes = min(l.maxRepresentationBytes, max(0, (maxBodyBytes - 4096) / 4 * 3))
        return l
    }

    /// Start-up: the persistent pasteboards the store holds (`general` among them once written).
    func restore(_ stored: [StoredPasteboard], logger: Logger) {
        boards.withLock { boards in
            for s in stored {
                do {
                    let items = try PasteboardCodec.decode(s.payload)
                    boards[s.name] = Pasteboard(name: s.name, owner: s.name == Pasteboard.generalName ? nil : s.owner,
                                                persistent: true, changeCount: s.changeCount, items: items)
                } catch {
                    logger.error("pasteboard '\(s.name)' is stored in an unreadable form; it is skipped")
                }
            }
        }
    }

    static func isValidName(_ name: String) -> Bool {
        // "events" would be shadowed by GET /pasteboards/events.
        name != "events" && ServerContext.isValidDocumentID(name)
    }

    func list() -> [Pasteboard] {
        boards.withLock { $0.values.sorted { $0.name < $1.name } }
    }

    func pasteboard(_ name: String) throws(APIError) -> Pasteboard {
        guard let p = boards.withLock({ $0[name] }) else { throw .notFound("pasteboard '\(name)'") }
        return p
    }

    func create(name: String?, owner: String, persistent: Bool) throws(APIError) -> Pasteboard {
        try writing.withLock { _ throws(APIError) in
            let p = try boards.withLock { boards throws(APIError) in
                guard boards.values.count(where: { $0.owner == owner }) < maxPerSession else {
                    throw .conflict("too_many_pasteboards", "a session may own at most \(maxPerSession) pasteboards")
                }
                var chosen = name
                while chosen == nil {
                    let candidate = Secrets.base64url(Secrets.randomBytes(9))
                    if boards[candidate] == nil, Self.isValidName(candidate) { chosen = candidate }
                }
                let n = chosen!
                guard boards[n] == nil else { throw .conflict("name_taken", "a pasteboard named '\(n)' exists") }
                return Pasteboard(name: n, owner: owner, persistent: persistent)
            }
            if persistent { try save(p) }
            boards.withLock { $0[p.name] = p }
            return p
        }
    }

    /// A write prepared but not yet visible: stored (if persistent) together with a change,
    /// and installed once that change commits. Only while `exclusively` runs.
    struct Staged: Sendable {
        var pasteboard: Pasteboard
        var change: Pasteboard.Change
        var writes: [StoreWrite] { pasteboard.persistent ? [.upsertPasteboard(PasteboardRegistry.stored(pasteboard))] : [] }
    }

    /// Runs `body` as the only pasteboard writer: what it stages stays valid until it returns.
    func exclusively<T>(_ body: () -> T) -> T {
        writing.withLock { _ in body() }
    }

    /// The pasteboard as `body` would leave it, without changing anything (inside `exclusively`).
    func stage(_ name: String, _ body: (inout Pasteboard, PasteboardLimits) throws(PasteboardError) -> Void) throws(APIError) -> Staged {
        guard var p = boards.withLock({ $0[name] }) else { throw .notFound("pasteboard '\(name)'") }
        let before = p.types
        do throws(PasteboardError) { try body(&p, limits) } catch { throw .pasteboard(error) }
        return Staged(pasteboard: p, change: Pasteboard.change(from: before, to: p.types))
    }

    /// Makes a staged write visible and publishes it (inside `exclusively`, once it is stored).
    func install(_ staged: Staged, publish: Publish) {
        let present = boards.withLock { boards -> Bool in
            guard boards[staged.pasteboard.name] != nil else { return false }
            boards[staged.pasteboard.name] = staged.pasteboard
            return true
        }
        if present { publish(.changed(staged.pasteboard, staged.change)) }
    }

    /// Changes a pasteboard's items with `body` (all or nothing), stores it if persistent
    /// and publishes what changed. Returns the pasteboard as written.
    @discardableResult
    func write(_ name: String, publish: Publish, _ body: (inout Pasteboard, PasteboardLimits) throws(PasteboardError) -> Void) throws(APIError) -> Pasteboard {
        try writing.withLock { _ throws(APIError) in
            let staged = try stage(name, body)
            if staged.pasteboard.persistent { try save(staged.pasteboard) }
            install(staged, publish: publish)
            return staged.pasteboard
        }
    }

    /// PATCH: only the owner may change it (anyone, once its owner's session has ended).
    func setPersistent(_ name: String, _ persistent: Bool, by session: String) throws(APIError) -> Pasteboard {
        try writing.withLock { _ throws(APIError) in
            var p = try pasteboard(name)
            try Self.checkOwner(p, session)
            guard p.persistent != persistent else { return p }
            p.persistent = persistent
            do throws(StoreError) {
                if persistent { try store.upsertPasteboard(Self.stored(p)) } else { try store.deletePasteboard(name) }
            } catch {
                throw .storageFailing
            }
            boards.withLock { $0[name] = p }
            return p
        }
    }

    func remove(_ name: String, by session: String, publish: Publish) throws(APIError) {
        try writing.withLock { _ throws(APIError) in
            let p = try pasteboard(name)
            try Self.checkOwner(p, session)
            if p.persistent {
                do throws(StoreError) { try store.deletePasteboard(name) } catch { throw .storageFailing }
            }
            boards.withLock { _ = $0.removeValue(forKey: name) }
            publish(.removed(p))
        }
    }

    /// What a session's end does to its pasteboards: its persistent ones stay, owned by nobody
    /// from now on, and the others go. Staged inside `exclusively`, so that the orphans are
    /// stored with the session's end as one unit and memory changes only once it is stored.
    struct SessionEnd: Sendable {
        var orphans: [Pasteboard]
        var removed: [Pasteboard]
        var writes: [StoreWrite] { orphans.map { .upsertPasteboard(PasteboardRegistry.stored($0)) } }
    }

    func stageSessionEnd(_ session: String) -> SessionEnd {
        var end = SessionEnd(orphans: [], removed: [])
        for p in boards.withLock({ $0.values.sorted { $0.name < $1.name } }) where p.owner == session {
            if p.persistent {
                var orphan = p
                orphan.owner = nil
                end.orphans.append(orphan)
            } else {
                end.removed.append(p)
            }
        }
        return end
    }

    /// Makes a staged session end visible (inside `exclusively`, once it is stored).
    func install(_ end: SessionEnd, publish: Publish) {
        boards.withLock { boards in
            for orphan in end.orphans where boards[orphan.name] != nil { boards[orphan.name] = orphan }
            for p in end.removed { boards.removeValue(forKey: p.name) }
        }
        for p in end.removed { publish(.removed(p)) }
    }

    private static func checkOwner(_ p: Pasteboard, _ session: String) throws(APIError) {
        if p.isGeneral { throw APIError(.forbidden, "not_owner", "the general pasteboard belongs to everyone and cannot be changed or removed") }
        if let owner = p.owner, owner != session {
            throw APIError(.forbidden, "not_owner", "only the session that created pasteboard '\(p.name)' may change or remove it")
        }
    }

    private func save(_ p: Pasteboard) throws(APIError) {
        do throws(StoreError) { try store.upsertPasteboard(Self.stored(p)) } catch { throw .storageFailing }
    }

    static func stored(_ p: Pasteboard) -> StoredPasteboard {
        StoredPasteboard(name: p.name, owner: p.owner, persistent: p.persistent, changeCount: p.changeCount,
                         payload: PasteboardCodec.encode(p.items))
    }
}

extension APIError {
    static func pasteboard(_ error: PasteboardError) -> APIError {
        switch error {
        case .tooLarge(let what): APIError(.payloadTooLarge, "pasteboard_too_large", what)
        case .invalidType: .badRequest(error.description, code: "invalid_type")
        case .emptyItem: .unprocessable(error.description, code: "empty_item")
        case .duplicateType: .unprocessable(error.description, code: "duplicate_type")
        }
    }
}
