import Logging
import Synchronization
import TandemCore
import TandemStore

/// Every pasteboard, by storage key (`key(of:)`: a person's `general` is one of many). `boards` guards the map and is held only for a moment (never while
/// waiting for anything), so readers and the store's writer thread may take it. `writers`
/// runs one writer at a time (read, store, install), each holding its place until its store
/// write is done, without a thread waiting for it. Persistent pasteboards are written to the
/// store before memory changes: a write the store refuses changes nothing. Events are
/// published inside the writer's turn, so subscribers hear the writes in the order they happened.
///
/// A writer may start on the thread that queues it, and takes a document's lock (a cut, a
/// session's end): never queue one while holding a document's lock.
final class PasteboardRegistry: Sendable {
    let limits: PasteboardLimits
    /// Pasteboards one person may own at once.
    let maxPerSession: Int
    /// Bytes one person's pasteboards may hold together, and all pasteboards together.
    let budget: PasteboardBudget
    /// `GET /pasteboards/events`.
    let events: EventChannel
    private let store: any DocumentStore
    private let boards = Mutex<[String: Pasteboard]>([:])
    private let writers = AsyncSerial()
    /// In a cluster every pasteboard is stored, persistent or not: another node must find it.
    /// (Persistence still decides what a session's end does.)
    let shared: Bool

    typealias Publish = @Sendable (PasteboardEvent) -> Void
    /// Where a write's outcome goes: on the store's thread once stored (or refused), or at
    /// once when nothing needed storing. The next writer starts only after it returns.
    typealias Then<T> = @Sendable (Result<T, APIError>) -> Void

    init(store: any DocumentStore, limits: PasteboardLimits, maxPerSession: Int = 100, budget: PasteboardBudget = .init(),
         events: EventChannel = EventChannel(), shared: Bool = false) {
        self.budget = budget
        self.store = store
        self.shared = shared
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

    /// Start-up: the persistent pasteboards the store holds (people's `general`s among them).
    /// The one `general` of earlier versions, everyone's, is left unread: it was everyone's
    /// clipboard, and is nobody's now.
    func restore(_ stored: [StoredPasteboard], logger: Logger) {
        boards.withLock { boards in
            for s in stored where s.name != Pasteboard.generalName {
                do {
                    var p = try Self.pasteboard(from: s)
                    p.persistent = p.persistent || !shared
                    boards[s.name] = p
                } catch {
                    logger.error("pasteboard '\(s.name)' is stored in an unreadable form; it is skipped")
                }
            }
        }
    }

    /// Where a pasteboard is kept, in memory and in the store: its name, or for a person's
    /// `general` "general~" and the owner ('~' is in no name a client may choose).
    static func key(of p: Pasteboard) -> String {
        p.isGeneral ? generalKeyPrefix + (p.owner ?? "") : p.name
    }

    /// The key `name` means for `reader`; `general` needs a person.
    static func key(_ name: String, for reader: PasteboardReader) throws(APIError) -> String {
        guard name == Pasteboard.generalName else { return name }
        guard let person = reader.person else { throw .sessionRequired("the general pasteboard") }
        return generalKeyPrefix + person
    }

    static let generalKeyPrefix = "general~"

    static func pasteboard(from s: StoredPasteboard) throws -> Pasteboard {
        let items = try PasteboardCodec.decode(s.payload)
        if s.name.hasPrefix(generalKeyPrefix) {
            return Pasteboard(name: Pasteboard.generalName, owner: String(s.name.dropFirst(generalKeyPrefix.count)),
                              persistent: true, changeCount: s.changeCount, items: items)
        }
        return Pasteboard(name: s.name, owner: s.owner, persistent: s.persistent, sharedWithEveryone: s.shared,
                          sharedWith: Set(s.sharedWith), changeCount: s.changeCount, items: items)
    }

    static func isValidName(_ name: String) -> Bool {
        // "events" would be shadowed by GET /pasteboards/events; "general" is everyone's own.
        name != "events" && name != Pasteboard.generalName && DocumentController.isValidDocumentID(name)
    }

    /// What `reader` may read, by name: their `general` first (empty until written), then
    /// the others.
    func list(for reader: PasteboardReader) -> [Pasteboard] {
        let general = reader.person.map { person in
            boards.withLock { $0[Self.generalKeyPrefix + person] } ?? .general(of: person)
        }
        let named = boards.withLock { $0.values.filter { !$0.isGeneral && reader.mayRead($0) } }
        return (general.map { [$0] } ?? []) + named.sorted { $0.name < $1.name }
    }

    /// The pasteboard `name` means for `reader`: 404 when there is none they may read, so a
    /// private one's name tells nothing.
    func pasteboard(_ name: String, for reader: PasteboardReader) throws(APIError) -> Pasteboard {
        let key = try Self.key(name, for: reader)
        if name == Pasteboard.generalName, let person = reader.person {
            return boards.withLock { $0[key] } ?? .general(of: person)
        }
        guard let p = boards.withLock({ $0[key] }), reader.mayRead(p) else { throw .notFound("pasteboard '\(name)'") }
        return p
    }

    /// A new pasteboard, shown (and `then` called) once it is stored if persistent.
    func create(name: String?, owner: String, persistent: Bool, sharing: PasteboardSharing, then: @escaping Then<Pasteboard>) {
        asWriter(then) { [self] finish in
            var p: Pasteboard
            do throws(APIError) {
                p = try newPasteboard(name: name, owner: owner, persistent: persistent)
                sharing.apply(to: &p)
            } catch {
                return finish(.failure(error))
            }
            submit(p.persistent || shared ? [.upsertPasteboard(Self.stored(p))] : []) { [self, p] stored in
                if case .failure(let error) = stored { return finish(.failure(error)) }
                boards.withLock { $0[p.name] = p }
                finish(.success(p))
            }
        }
    }

    /// Inside a writer's turn: the name is still free when the pasteboard is installed.
    private func newPasteboard(name: String?, owner: String, persistent: Bool) throws(APIError) -> Pasteboard {
        try boards.withLock { boards throws(APIError) in
            guard boards.values.count(where: { $0.owner == owner && !$0.isGeneral }) < maxPerSession else {
                throw .conflict("too_many_pasteboards", "a person may own at most \(maxPerSession) pasteboards")
            }
            var chosen = name
            while chosen == nil {
                let candidate = Secrets.base64url(Secrets.randomBytes(9))
                if boards[candidate] == nil, Self.isValidName(candidate) { chosen = candidate }
            }
            let n = chosen!
            // Names are one space for everyone: a taken one is refused, private or not.
            guard boards[n] == nil, n != Pasteboard.generalName else { throw .conflict("name_taken", "a pasteboard named '\(n)' exists") }
            return Pasteboard(name: n, owner: owner, persistent: persistent)
        }
    }

    /// A write prepared but not yet visible: stored (if persistent) together with a change,
    /// and installed once that change commits. Only during a `serially` job.
    struct Staged: Sendable {
        var pasteboard: Pasteboard
        var change: Pasteboard.Change
        /// In a cluster (every pasteboard is stored).
        var shared = false
        var writes: [StoreWrite] { pasteboard.persistent || shared ? [.upsertPasteboard(PasteboardRegistry.stored(pasteboard))] : [] }
    }

    /// Runs `job` as the only pasteboard writer: what it stages stays valid until it calls
    /// its completion, which it must call exactly once (when its store write is done).
    func serially(_ job: @escaping AsyncSerial.Job) {
        writers.run(job)
    }

    /// `serially`, for a job whose outcome goes to `then`: its turn ends just after.
    private func asWriter<T>(_ then: @escaping Then<T>, _ job: @escaping @Sendable (_ finish: @escaping Then<T>) -> Void) {
        writers.run { done in
            job { result in
                then(result)
                done()
            }
        }
    }

    /// Submits `writes` as one unit (nothing to submit succeeds at once); a refusal is a 503.
    private func submit(_ writes: [StoreWrite], then: @escaping @Sendable (Result<Void, APIError>) -> Void) {
        guard !writes.isEmpty else { return then(.success(())) }
        store.submit(writes) { result in then(result.mapError { _ in .storageFailing }) }
    }

    /// The pasteboard as `body` would leave it, without changing anything (inside `serially`).
    /// Whoever may read a pasteboard may write its items.
    func stage(_ name: String, by reader: PasteboardReader,
               _ body: (inout Pasteboard, PasteboardLimits) throws(PasteboardError) -> Void) throws(APIError) -> Staged {
        var p = try pasteboard(name, for: reader)
        let before = p.types, bytesBefore = p.byteCount
        do throws(PasteboardError) { try body(&p, limits) } catch { throw .pasteboard(error) }
        if p.byteCount > bytesBefore { try checkBudget(owner: p.owner, growing: p.byteCount - bytesBefore) }
        return Staged(pasteboard: p, change: Pasteboard.change(from: before, to: p.types), shared: shared)
    }

    /// Refuses a write that would take a person's pasteboards, or all of them, past their
    /// budget (inside `serially`, so no other write grows them meanwhile).
    private func checkBudget(owner: String?, growing: Int) throws(APIError) {
        let (own, all) = boards.withLock { boards in
            boards.values.reduce((0, 0)) { sums, p in (sums.0 + (owner != nil && p.owner == owner ? p.byteCount : 0), sums.1 + p.byteCount) }
        }
        if owner != nil, own + growing > budget.sessionBytes {
            throw APIError(.payloadTooLarge, "pasteboard_session_budget",
                           "a person's pasteboards hold at most \(budget.sessionBytes) bytes together (--pasteboard-session-bytes)")
        }
        guard all + growing <= budget.totalBytes else {
            throw APIError(.insufficientStorage, "pasteboard_storage_full",
                           "all pasteboards hold at most \(budget.totalBytes) bytes together (--pasteboard-total-bytes)")
        }
    }

    /// Makes a staged write visible and publishes it (inside `serially`, once it is stored).
    func install(_ staged: Staged, publish: Publish) {
        let key = Self.key(of: staged.pasteboard)
        let present = boards.withLock { boards -> Bool in
            // A person's general comes into being with its first write; a named one removed
            // meanwhile stays removed.
            guard boards[key] != nil || staged.pasteboard.isGeneral else { return false }
            boards[key] = staged.pasteboard
            return true
        }
        if present { publish(.changed(staged.pasteboard, staged.change)) }
    }

    /// Changes a pasteboard's items with `body` (all or nothing), stores it if persistent
    /// and publishes what changed; `then` gets the pasteboard as written.
    func write(_ name: String, by reader: PasteboardReader, publish: @escaping Publish,
               _ body: @escaping @Sendable (inout Pasteboard, PasteboardLimits) throws(PasteboardError) -> Void,
               then: @escaping Then<Pasteboard>) {
        asWriter(then) { [self] finish in
            let staged: Staged
            do throws(APIError) { staged = try stage(name, by: reader, body) } catch { return finish(.failure(error)) }
            submit(staged.writes) { [self] stored in
                if case .failure(let error) = stored { return finish(.failure(error)) }
                install(staged, publish: publish)
                finish(.success(staged.pasteboard))
            }
        }
    }

    /// PATCH: whether it outlives a restart, and who shares it; its owner only. Shared with
    /// more people, it is told as changed to those who may read it now (as another node tells it).
    func update(_ name: String, persistent: Bool?, sharing: PasteboardSharing?, by reader: PasteboardReader,
                publish: @escaping Publish, then: @escaping Then<Pasteboard>) {
        asWriter(then) { [self] finish in
            var p: Pasteboard
            do throws(APIError) {
                p = try pasteboard(name, for: reader)
                try Self.checkManager(p, reader)
            } catch {
                return finish(.failure(error))
            }
            let before = p
            if let persistent { p.persistent = persistent }
            sharing?.apply(to: &p)
            guard p != before else { return finish(.success(p)) }
            let write: [StoreWrite] = p.persistent || shared ? [.upsertPasteboard(Self.stored(p))]
                : before.persistent ? [.deletePasteboard(name)] : []
            submit(write) { [self, p] stored in
                if case .failure(let error) = stored { return finish(.failure(error)) }
                boards.withLock { $0[name] = p }
                if p.sharedWithEveryone && !before.sharedWithEveryone || !p.sharedWith.isSubset(of: before.sharedWith) {
                    publish(.changed(p, Pasteboard.Change(typesAdded: p.types, typesRemoved: [])))
                }
                finish(.success(p))
            }
        }
    }

    func remove(_ name: String, by reader: PasteboardReader, publish: @escaping Publish, then: @escaping Then<Void>) {
        asWriter(then) { [self] finish in
            let p: Pasteboard
            do throws(APIError) {
                p = try pasteboard(name, for: reader)
                try Self.checkManager(p, reader)
            } catch {
                return finish(.failure(error))
            }
            submit(p.persistent || shared ? [.deletePasteboard(name)] : []) { [self] stored in
                if case .failure(let error) = stored { return finish(.failure(error)) }
                boards.withLock { _ = $0.removeValue(forKey: name) }
                publish(.removed(p))
                finish(.success(()))
            }
        }
    }

    /// What a guest session's end does to the pasteboards of its person (the session): the
    /// persistent ones shared with everyone stay, owned by nobody from now on; the others go,
    /// its `general` too, since nobody could read them any more. A user's pasteboards outlive
    /// their sessions.
    /// Staged inside `serially`, so that the orphans are stored with the session's end as one
    /// unit and memory changes only once it is stored.
    struct SessionEnd: Sendable {
        var orphans: [Pasteboard]
        var removed: [Pasteboard]
        var shared = false
        var writes: [StoreWrite] {
            orphans.map { .upsertPasteboard(PasteboardRegistry.stored($0)) }
                + removed.filter { $0.persistent || shared }.map { .deletePasteboard(PasteboardRegistry.key(of: $0)) }
        }
    }

    func stageSessionEnd(_ session: String) -> SessionEnd {
        var end = SessionEnd(orphans: [], removed: [], shared: shared)
        for p in boards.withLock({ $0.values.sorted { $0.name < $1.name } }) where p.owner == session {
            if p.persistent && p.sharedWithEveryone && !p.isGeneral {
                var orphan = p
                orphan.owner = nil
                end.orphans.append(orphan)
            } else {
                end.removed.append(p)
            }
        }
        return end
    }

    /// Makes a staged session end visible (inside `serially`, once it is stored).
    func install(_ end: SessionEnd, publish: Publish) {
        boards.withLock { boards in
            for orphan in end.orphans where boards[orphan.name] != nil { boards[orphan.name] = orphan }
            for p in end.removed { boards.removeValue(forKey: Self.key(of: p)) }
        }
        for p in end.removed { publish(.removed(p)) }
    }

    /// A pasteboard as another node stored it (nil: removed there), installed here; the event
    /// to publish, nil when nothing changed.
    func refresh(_ key: String, from stored: StoredPasteboard?, logger: Logger) -> PasteboardEvent? {
        guard let stored else {
            return boards.withLock { $0.removeValue(forKey: key) }.map { PasteboardEvent.removed($0) }
        }
        guard key != Pasteboard.generalName else { return nil }  // the everyone's general of earlier versions
        let p: Pasteboard
        do { p = try Self.pasteboard(from: stored) } catch {
            logger.error("pasteboard '\(key)' from another node is in an unreadable form; it is skipped")
            return nil
        }
        let before = boards.withLock { boards -> Pasteboard? in
            defer { boards[key] = p }
            return boards[key]
        }
        if let before, before == p { return nil }
        return .changed(p, Pasteboard.change(from: before?.types ?? [], to: p.types))
    }

    private static func checkManager(_ p: Pasteboard, _ reader: PasteboardReader) throws(APIError) {
        if p.isGeneral { throw APIError(.forbidden, "not_owner", "a general pasteboard is always there, private and persistent: it cannot be changed or removed") }
        guard reader.mayManage(p) else {
            throw APIError(.forbidden, "not_owner", "only the person who created pasteboard '\(p.name)' may change or remove it")
        }
    }

    static func stored(_ p: Pasteboard) -> StoredPasteboard {
        StoredPasteboard(name: key(of: p), owner: p.owner, persistent: p.persistent, changeCount: p.changeCount,
                         payload: PasteboardCodec.encode(p.items), shared: p.sharedWithEveryone, sharedWith: p.sharedWith.sorted())
    }
}

/// What all pasteboards may hold: one person's together, and everyone's together.
public struct PasteboardBudget: Sendable, Hashable {
    public var sessionBytes: Int
    public var totalBytes: Int

    public init(sessionBytes: Int = 64 << 20, totalBytes: Int = 1 << 30) {
        self.sessionBytes = sessionBytes
        self.totalBytes = totalBytes
    }
}
