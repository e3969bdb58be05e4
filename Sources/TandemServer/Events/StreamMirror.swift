import Dispatch
import Synchronization
import TandemHTTP

/// A document's event stream on a node that does not hold it (`--cluster leases`,
/// docs/scale-out.md, "Streams relayed once"): one stream from the owner carries every frame
/// meant for all, and this node sends it on to each of its own subscribers through an
/// `EventChannel` (batched, compressed once), so a change crosses between nodes once, not
/// once per subscriber. Each subscriber keeps a control stream of its own from the owner,
/// with its catch-up, the frames meant for it alone, and its end when its right to read goes;
/// where that stream joins the document (`ServerSentEvents.relayJoined`), it joins the mirror.
///
/// The mirror keeps its last `recentBudget` bytes of frames: a control stream that joined at a
/// revision the mirror has passed is sent the frames after it from there, and one too far
/// behind is ended (its client resumes with `Last-Event-ID`). When the owner's stream ends
/// (the owner died, or gave the document up), every subscriber's stream here ends with it.
final class StreamMirror: Sendable {
    let id: String
    let address: String
    let channel: EventChannel
    private let state = Mutex(State())
    private let recentBudget: Int
    /// Subscribers on their way to `attach` (their control streams not joined yet).
    let joining = Atomic(0)

    /// The frames of one revision (a change with the history events around it) or one other
    /// event, with the revision a subscriber that joined at or after it already has them by.
    struct Unit: Sendable {
        var tag: Int
        var bytes: [UInt8]
    }

    enum Phase: Sendable { case opening, open, closed }

    struct State: @unchecked Sendable {
        var phase = Phase.opening
        var waiting: [@Sendable (Bool) -> Void] = []
        /// The newest revision the owner's stream has brought.
        var position = 0
        var recent: [Unit] = []
        var recentBytes = 0
        /// Units tagged at or below it may have left `recent`.
        var floor = 0
        /// Bytes of the owner's stream after its last whole event (read on the pool's loop).
        var partial: [UInt8] = []
        /// The owner's stream, cancelled on its pool's loop.
        var task: HTTPClientTask?
        var pool: HTTPClientPool?
        /// Subscribers that joined with the presence list their control stream gave them (it
        /// names them), by writer: the owner's broadcast of that same list, which may come
        /// through the mirror after they joined, is not sent to them a second time.
        var presenceSeen: [ObjectIdentifier: [UInt8]] = [:]
    }

    /// Told once the mirror closed, whatever closed it.
    private let onClose: @Sendable (StreamMirror) -> Void

    init(id: String, address: String, recentBudget: Int = 1 << 20, coalescing: Double,
         onCountChange: @escaping @Sendable (StreamMirror, Int) -> Void,
         onClose: @escaping @Sendable (StreamMirror) -> Void = { _ in }) {
        self.onClose = onClose
        self.id = id
        self.address = address
        self.recentBudget = recentBudget
        let box = WeakMirror()
        channel = EventChannel(coalescing: coalescing) { delta in box.mirror.map { onCountChange($0, delta) } }
        box.mirror = self
    }

    private final class WeakMirror: @unchecked Sendable {
        weak var mirror: StreamMirror?
    }

    var isClosed: Bool { state.withLock { $0.phase == .closed } }

    // MARK: The owner's stream

    /// Opens the owner's stream, on the pool's loop: `path` is the document's events path,
    /// `key` the cluster's (`Tandem-Peer-Key`).
    func open(path: String, upstream: HTTPUpstream, key: String, pool: HTTPClientPool) {
        var headers = HTTPHeaders()
        headers.set("Accept", "text/event-stream")
        headers.set("Accept-Encoding", "identity")
        headers.set(AuthenticationMiddleware.peerKeyField, key)
        headers.set(ServerSentEvents.relayField, "mirror")
        headers.set(DocumentPlacementMiddleware.forwardedField, "1")
        let request = HTTPClientRequest(method: .get, target: path, headers: headers, bodyIdleTimeout: nil, longLived: true)
        let task = pool.send(request, to: upstream, onHead: { [self] head in
            if head.status != 200 || head.headers["content-type"]?.hasPrefix("text/event-stream") != true { close() }
        }, onBody: { [self] piece in
            received(piece)
        }, onEnd: { [self] _ in
            close()
        })
        state.withLock {
            $0.task = task
            $0.pool = pool
        }
    }

    /// Calls `then` once the owner's stream has joined (true), or ended before it did (false).
    func whenOpen(_ then: @escaping @Sendable (Bool) -> Void) {
        let now = state.withLock { s -> Bool? in
            switch s.phase {
            case .opening: s.waiting.append(then); return nil
            case .open: return true
            case .closed: return false
            }
        }
        if let now { then(now) }
    }

    /// Ends the owner's stream and every subscriber's here.
    func close() {
        let closing = state.withLock { s -> ([@Sendable (Bool) -> Void], HTTPClientTask?, HTTPClientPool?)? in
            guard s.phase != .closed else { return nil }
            s.phase = .closed
            defer { s.waiting = []; s.recent = []; s.partial = []; s.task = nil }
            return (s.waiting, s.task, s.pool)
        }
        guard let (waiting, task, pool) = closing else { return }
        if let task, let pool { pool.execute { _ in task.cancel() } }
        channel.closeAll()
        for then in waiting { then(false) }
        onClose(self)
    }

    private func received(_ piece: [UInt8]) {
        let events = state.withLock { s -> [UInt8]? in
            s.partial += piece
            guard let end = HTTPRelay.lastEventEnd(s.partial) else {
                if s.partial.count > HTTPRelayLimits.maxEventBytes { s.partial = [] }
                return nil
            }
            let whole = Array(s.partial[..<end])
            s.partial.removeFirst(end)
            return whole
        }
        guard let events else { return }
        var opened: [@Sendable (Bool) -> Void] = []
        state.withLock { s in
            guard s.phase != .closed else { return }
            for unit in Self.units(events, joined: { revision in
                s.position = revision
                s.floor = revision
                if s.phase == .opening {
                    s.phase = .open
                    opened = s.waiting
                    s.waiting = []
                }
            }) {
                if case .change(let r) = unit.kind { s.position = max(s.position, r) }
                if unit.tag != Int.max { remember(Unit(tag: unit.tag, bytes: unit.bytes), in: &s) }
                // Sent in the lock, so that a subscriber joining is sent each unit once:
                // from `recent` or from the channel.
                switch unit.kind {
                case .change(let r): channel.send(unit.bytes, revisions: r...r)
                case .presence: sendPresence(unit.bytes, in: &s)
                case .other: channel.send(unit.bytes)
                }
            }
        }
        for then in opened { then(true) }
    }

    private func remember(_ unit: Unit, in s: inout State) {
        s.recent.append(unit)
        s.recentBytes += unit.bytes.count
        guard s.recentBytes > 2 * recentBudget else { return }
        var drop = 0
        while s.recentBytes > recentBudget, drop < s.recent.count {
            s.recentBytes -= s.recent[drop].bytes.count
            s.floor = max(s.floor, s.recent[drop].tag)
            drop += 1
        }
        s.recent.removeFirst(drop)
    }

    // MARK: Subscribers

    /// Sends `writer` every frame after revision `revision` (where its control stream joined
    /// the document) and subscribes it; ends it if the mirror cannot.
    /// `presence`: the presence event its control stream gave it, if any.
    func attach(_ writer: HTTPStreamWriter, revision: Int, presence: [UInt8]? = nil) {
        let attached = state.withLock { s -> Bool in
            guard s.phase == .open, revision >= s.floor else { return false }
            var missed: [UInt8] = []
            for unit in s.recent where unit.tag > revision { missed += unit.bytes }
            if !missed.isEmpty, !writer.write(missed) { return false }
            if let presence { s.presenceSeen[ObjectIdentifier(writer)] = Self.withoutID(presence) }
            channel.add(writer, caller: Caller(), revision: max(revision, s.position))
            return true
        }
        if !attached { writer.finish() }
    }

    /// A presence list from the owner, to every subscriber but those that joined with this
    /// very list; the list after it goes to everyone again.
    private func sendPresence(_ frame: [UInt8], in s: inout State) {
        guard !s.presenceSeen.isEmpty else { return channel.send(frame, replacing: "presence") }
        let list = Self.withoutID(frame)
        let seen = Set(s.presenceSeen.filter { $0.value == list }.keys)
        s.presenceSeen = [:]
        if seen.isEmpty { return channel.send(frame, replacing: "presence") }
        channel.send(frame) { !seen.contains(ObjectIdentifier($0.writer)) }
    }

    /// An event's bytes from its `event:` line on (the same list sent at another revision
    /// is the same list).
    static func withoutID(_ event: [UInt8]) -> [UInt8] {
        guard let at = EventStreamReader.find(event, 0..<event.count, Array("event: ".utf8)) else { return event }
        return Array(event[at...])
    }

    // MARK: Reading the owner's frames

    /// What one unit of the owner's stream is, for the channel.
    enum Kind: Equatable { case change(Int), presence, other }

    struct ParsedUnit {
        var kind: Kind
        var tag: Int
        var bytes: [UInt8]
    }

    /// The notifications the owner sends before a change, with the revision before it.
    static let leadingNotifications: [[UInt8]] = ["willUndo", "willRedo", "didOpenUndoGroup"].map { Array("\"notification\":\"\($0)\"".utf8) }

    /// Cuts whole events into units: each change with the history events around it, and every
    /// other event alone; `joined` hears the owner's `relayJoined` revision, which is no unit.
    static func units(_ events: [UInt8], joined: (Int) -> Void) -> [ParsedUnit] {
        var out: [ParsedUnit] = []
        var pending: ParsedUnit?
        func flush() {
            if let p = pending { out.append(p) }
            pending = nil
        }
        for range in EventStreamReader.events(events) {
            let (name, id) = EventStreamReader.header(events, range)
            let event = events[range]
            switch name {
            case .relayJoined:
                flush()
                if let revision = EventStreamReader.intField(events, range, "revision") { joined(revision) }
            case .change:
                let r = id ?? 0
                if var p = pending, p.kind == .other, p.tag == r {
                    // The notifications before it (tagged with its revision) are its.
                    p.kind = .change(r)
                    p.bytes += event
                    pending = p
                } else {
                    flush()
                    pending = ParsedUnit(kind: .change(r), tag: r, bytes: Array(event))
                }
            case .history:
                let x = id ?? 0
                let leading = leadingNotifications.contains { EventStreamReader.contains(events, range, $0) }
                if leading {
                    if case .change? = pending?.kind { flush() }
                    if var p = pending, p.kind == .other, p.tag == x + 1 {
                        p.bytes += event
                        pending = p
                    } else {
                        flush()
                        pending = ParsedUnit(kind: .other, tag: x + 1, bytes: Array(event))
                    }
                } else if var p = pending, case .change(let r) = p.kind, r == x {
                    p.bytes += event
                    pending = p
                } else {
                    flush()
                    out.append(ParsedUnit(kind: .other, tag: x, bytes: Array(event)))
                }
            case .presence:
                flush()
                out.append(ParsedUnit(kind: .presence, tag: id ?? 0, bytes: Array(event)))
            case .other:
                flush()
                out.append(ParsedUnit(kind: .other, tag: id ?? Int.max, bytes: Array(event)))
            }
        }
        flush()
        return out
    }
}

/// Limits of a relayed stream that the mirror shares with `HTTPRelay`'s.
enum HTTPRelayLimits {
    /// Most bytes of one event: the owner never writes one larger (a change is bounded by the
    /// largest edit body).
    static let maxEventBytes = 64 << 20
}
