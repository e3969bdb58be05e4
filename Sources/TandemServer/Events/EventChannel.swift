import TandemHTTP
import Dispatch
import Synchronization

/// The live subscribers of one stream (a document's events, or the pasteboards').
///
/// Frames are queued in the order they are sent and written out at once after a quiet moment,
/// else within a gap of the last flush (1 ms, up to `spacing` under load; see `enqueue`), all that
/// is due to one subscriber as one chunk: at thousands of changes a second this turns one
/// socket write per change per subscriber into one per batch, and keeps every event in order
/// (a presence event never overtakes the change before it). For gzipped streams the batch is
/// compressed once, for all of them.
/// A subscriber whose socket has fallen more than `maxBufferedBytes` behind is cut off, so it
/// can never stall an edit or another subscriber; its EventSource reconnects with
/// `Last-Event-ID` and catches up.
public final class EventChannel: Sendable {
    public final class Subscriber: Sendable {
        public let writer: HTTPStreamWriter
        /// The session it counts as present; nil for a node's mirror, which is nobody.
        public let session: String?
        /// The credentials the stream was opened with: it ends when they no longer read.
        let caller: Caller
        /// The newest change revision this subscriber has (its catch-up included), so a
        /// change published after it joined is never sent twice.
        let revision: Atomic<Int>
        let role: Role
        /// How many frames had been queued when it joined: those are not sent to it (what it
        /// has from before it joined came with its catch-up, or a relayed stream's replay).
        let joined: Int
        init(writer: HTTPStreamWriter, caller: Caller, revision: Int, role: Role, joined: Int = 0) {
            self.writer = writer
            self.session = role == .mirror ? nil : caller.session?.id
            self.caller = caller
            self.revision = Atomic(revision)
            self.role = role
            self.joined = joined
        }

        /// Whether the frames sent to `include`d subscribers (nil: to all) go to this one.
        func takes(_ include: (@Sendable (Subscriber) -> Bool)?) -> Bool {
            switch (role, include) {
            case (.full, nil): true
            case (.full, let include?): include(self)
            case (.mirror, nil): true
            case (.mirror, _?): false
            case (.control, nil): false
            case (.control, let include?): include(self)
            }
        }
    }

    /// What a subscriber is sent where a document is held on another node (docs/scale-out.md,
    /// "Streams relayed once"): the relaying node takes every frame meant for all over one
    /// `mirror` stream, and each of its subscribers over a `control` stream of its own only
    /// the frames meant for it alone (and its end, when its right to read goes).
    enum Role: Sendable {
        case full
        case mirror
        case control
    }

    struct Queued: Sendable {
        var frame: [UInt8]
        /// Its place among every frame the channel queued.
        var seq = 0
        /// The change revisions the frames carry (consecutive); nil for other events.
        var revisions: ClosedRange<Int>?
        var include: (@Sendable (Subscriber) -> Bool)?
        /// Frames within `frame` that a later one of the same key makes redundant (see
        /// `Coalescable`), in order.
        var coalescable: [Coalescable] = []
    }

    /// A frame that only says "this changed" (a session's undo state) or holds a whole state
    /// (the presence list), so that when several of one key are due in one flush, the last
    /// says all the others did: the rest are dropped, as NotificationQueue coalesces
    /// notifications on name and sender. Every keystroke brings a `history` frame besides its
    /// `change`, and every cursor move the whole presence list: while many people type or move,
    /// most of those frames are superseded before they are written.
    public struct Coalescable: Sendable {
        public var key: String
        public var range: Range<Int>
        public init(key: String, range: Range<Int>) {
            self.key = key
            self.range = range
        }
    }

    private let subscribers = Mutex<[Int: Subscriber]>([:])
    private let queued = Mutex<FlushState>(FlushState())

    struct FlushState {
        var frames: [Queued] = []
        /// Frames queued since the channel began.
        var enqueued = 0
        var scheduled = false
        /// When the last flush started (monotonic ns).
        var lastFlush: UInt64 = 0
        /// Events the last flush carried.
        var lastBatch = 0
    }
    private let nextID = Mutex(0)
    private let flusher = DispatchQueue(label: "tandem.events")
    let maxBufferedBytes: Int
    /// Called with the change in the number of subscribers (for the gauge).
    private let onCountChange: @Sendable (Int) -> Void

    /// `coalescing`: seconds an event may wait for company while writes are pending.
    public init(maxBufferedBytes: Int = 1 << 20, coalescing: Double = 0.003, onCountChange: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.maxBufferedBytes = maxBufferedBytes
        spacing = UInt64(max(0, coalescing) * 1e9)
        self.onCountChange = onCountChange
    }

    public var count: Int { subscribers.withLock { $0.count } }

    /// The sessions among the subscribers (presence).
    public var sessions: Set<String> { subscribers.withLock { Set($0.values.compactMap(\.session)) } }

    /// Adds a subscriber that already has every change up to `revision`; it is removed when
    /// its stream closes. Streams without revisions leave the default.
    @discardableResult
    func add(_ writer: HTTPStreamWriter, caller: Caller, revision: Int = Int.max, role: Role = .full) -> Int {
        let id = nextID.withLock { n in n += 1; return n }
        let joined = queued.withLock { $0.enqueued }
        subscribers.withLock { $0[id] = Subscriber(writer: writer, caller: caller, revision: revision, role: role, joined: joined) }
        onCountChange(1)
        writer.onClose { [weak self] in self?.remove(id) }
        return id
    }

    public func remove(_ id: Int) {
        let removed = subscribers.withLock { $0.removeValue(forKey: id) } != nil
        if removed { onCountChange(-1) }
    }

    /// Queues the frames of consecutive changes `revisions` (one group commit's), framed
    /// together. Publishing runs in the document's executor, as subscribing does, so no
    /// subscriber can hold part of the range: each gets all of it or none.
    /// `coalescable` marks the frames among them that a later one of the same key may replace.
    public func send(_ frames: [UInt8], revisions: ClosedRange<Int>, coalescable: [Coalescable] = []) {
        enqueue(Queued(frame: frames, revisions: revisions, include: nil, coalescable: coalescable))
    }

    /// Queues a frame for every subscriber that says all an earlier one of the same key said
    /// (the whole presence list): one still due in the same flush is dropped for it.
    public func send(_ frame: [UInt8], replacing key: String) {
        enqueue(Queued(frame: frame, revisions: nil, include: nil, coalescable: [Coalescable(key: key, range: 0..<frame.count)]))
    }

    /// Queues framed bytes for every subscriber that `include` accepts.
    public func send(_ frame: [UInt8], to include: (@Sendable (Subscriber) -> Bool)? = nil) {
        enqueue(Queued(frame: frame, revisions: nil, include: include))
    }

    /// The longest two flushes are apart while events keep coming, in nanoseconds.
    let spacing: UInt64

    /// How far apart two flushes are while events keep coming: 1 ms after a batch of a few
    /// events, growing with the batch (125 µs an event) up to `spacing`. Each flush is a
    /// socket write per subscriber, so the writes stay few when events come thick; the wait is
    /// counted from the last flush, so an event after a quiet moment goes out at once.
    func gap(afterBatchOf events: Int) -> UInt64 {
        min(spacing, max(min(spacing, 1_000_000), UInt64(events) * 125_000))
    }

    /// Queues a frame: written at once if the last flush is older than the gap, else with
    /// whatever else comes until then, one write per subscriber for all of it (as Nagle's
    /// algorithm holds a small segment only while one is unacknowledged). The subscriber's
    /// stream merges besides what its loop has not written yet (`StreamState`).
    private func enqueue(_ q: Queued) {
        let now = DispatchTime.now().uptimeNanoseconds
        var q = q
        let wait = queued.withLock { state -> UInt64? in
            q.seq = state.enqueued
            state.enqueued += 1
            state.frames.append(q)
            if state.scheduled { return nil }
            state.scheduled = true
            let due = state.lastFlush + gap(afterBatchOf: state.lastBatch)
            return due > now ? due - now : 0
        }
        guard let wait else { return }
        if wait == 0 {
            flusher.async { [self] in flush() }
        } else {
            flusher.asyncAfter(deadline: .now() + .nanoseconds(Int(wait))) { [self] in flush() }
        }
    }

    private func flush() {
        let started = DispatchTime.now().uptimeNanoseconds
        var frames = queued.withLock { state -> [Queued] in
            defer {
                // Counted in events, not entries: a group commit's changes come as one entry.
                state.lastBatch = state.frames.reduce(0) { $0 + ($1.revisions?.count ?? 1) }
                state.frames.removeAll()
                state.scheduled = false
                state.lastFlush = started
            }
            return state.frames
        }
        frames = Self.coalesce(frames)
        let targets = subscribers.withLock { Array($0) }
        // Subscribers that start this batch at the same revision, with no per-subscriber
        // filter in it, get the same bytes: built and framed once, and written by every
        // connection from that one array: the work stays one batch's, however many listen.
        let filtered = frames.contains { $0.include != nil }
        // A shared batch is compressed once, if any stream is gzipped (see `GzipPiece`).
        let gzip = targets.contains { $0.value.writer.compresses }
        var shared: [SharedKey: (from: Int, chunk: HTTPStreamChunk?, reached: Int)] = [:]
        let firstSeq = frames.first?.seq ?? 0
        for (id, s) in targets {
            let from = s.revision.load(ordering: .relaxed)
            // Frames queued before it joined are not its.
            let skip = max(0, min(frames.count, s.joined - firstSeq))
            let key = SharedKey(role: s.role, skip: skip)
            var chunk: HTTPStreamChunk?
            var had = from
            if !filtered, let cached = shared[key], cached.from == from {
                (chunk, had) = (cached.chunk, cached.reached)
            } else {
                var out: [UInt8] = []
                for q in frames.dropFirst(skip) {
                    if let r = q.revisions {
                        guard r.upperBound > had else { continue }
                        had = r.upperBound
                    }
                    if !s.takes(q.include) { continue }
                    out += q.frame
                }
                chunk = out.isEmpty ? nil : HTTPStreamChunk(out, gzip: filtered ? s.writer.compresses : gzip)
                if !filtered { shared[key] = (from, chunk, had) }
            }
            s.revision.store(had, ordering: .relaxed)
            guard let chunk else { continue }
            if s.writer.bufferedByteCount > maxBufferedBytes || !s.writer.write(chunk) {
                s.writer.finish()
                remove(id)
            }
        }
    }

    /// Subscribers that get the same bytes from a batch: of one role, joined before the same
    /// frame of it (and, checked beside, at the same revision).
    private struct SharedKey: Hashable {
        var role: Role
        var skip: Int
    }

    /// The batch with every coalescable frame dropped that a later one of its key follows.
    /// A subscriber skips only the change entries from before it joined, a prefix of them, and
    /// every dropped frame comes before the one kept for it: so a subscriber misses no frame
    /// but those it skipped anyway.
    static func coalesce(_ frames: [Queued]) -> [Queued] {
        guard frames.contains(where: { !$0.coalescable.isEmpty }) else { return frames }
        // Keys that have a frame further on, walking back from the end.
        var later = Set<String>()
        var result = frames
        for i in frames.indices.reversed() where !frames[i].coalescable.isEmpty {
            let entry = frames[i]
            var drop = [Bool](repeating: false, count: entry.coalescable.count)
            for k in entry.coalescable.indices.reversed() {
                drop[k] = !later.insert(entry.coalescable[k].key).inserted
            }
            guard drop.contains(true) else { continue }
            var kept: [UInt8] = []
            kept.reserveCapacity(entry.frame.count)
            var from = 0
            for (k, c) in entry.coalescable.enumerated() where drop[k] {
                kept += entry.frame[from..<c.range.lowerBound]
                from = c.range.upperBound
            }
            kept += entry.frame[from...]
            result[i].frame = kept
            result[i].coalescable = []
        }
        return result
    }

    /// Ends the streams `ends` picks (their credentials no longer read the document).
    func close(where ends: (Subscriber) -> Bool) {
        let gone = subscribers.withLock { s -> [Subscriber] in
            let picked = s.filter { ends($0.value) }
            for id in picked.keys { s.removeValue(forKey: id) }
            return Array(picked.values)
        }
        for s in gone { s.writer.finish() }
        if !gone.isEmpty { onCountChange(-gone.count) }
    }

    /// Ends every stream (shutdown).
    public func closeAll() {
        let all = subscribers.withLock { s -> [Subscriber] in
            let v = Array(s.values)
            s.removeAll()
            return v
        }
        for s in all { s.writer.finish() }
        if !all.isEmpty { onCountChange(-all.count) }
    }
}
