import Synchronization
import TandemHTTP

/// The live subscribers of one stream (a document's events, or the pasteboards').
/// An event is framed once and written to every subscriber; a subscriber whose socket has
/// fallen more than `maxBufferedBytes` behind is cut off, so it can never stall an edit or
/// another subscriber — its EventSource reconnects with `Last-Event-ID` and catches up.
public final class EventChannel: Sendable {
    public final class Subscriber: Sendable {
        public let writer: HTTPStreamWriter
        public let session: String?
        init(writer: HTTPStreamWriter, session: String?) {
            self.writer = writer
            self.session = session
        }
    }

    private let subscribers = Mutex<[Int: Subscriber]>([:])
    private let nextID = Mutex(0)
    let maxBufferedBytes: Int
    /// Called with the number of subscribers whenever it changes (for the gauge).
    private let onCountChange: @Sendable (Int) -> Void

    public init(maxBufferedBytes: Int = 1 << 20, onCountChange: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.maxBufferedBytes = maxBufferedBytes
        self.onCountChange = onCountChange
    }

    public var count: Int { subscribers.withLock { $0.count } }

    /// The sessions among the subscribers (presence).
    public var sessions: Set<String> { subscribers.withLock { Set($0.values.compactMap(\.session)) } }

    /// Adds a subscriber; it is removed when its stream closes.
    @discardableResult
    public func add(_ writer: HTTPStreamWriter, session: String?) -> Int {
        let id = nextID.withLock { n in n += 1; return n }
        subscribers.withLock { $0[id] = Subscriber(writer: writer, session: session) }
        onCountChange(1)
        writer.onClose { [weak self] in self?.remove(id) }
        return id
    }

    public func remove(_ id: Int) {
        let removed = subscribers.withLock { $0.removeValue(forKey: id) } != nil
        if removed { onCountChange(-1) }
    }

    /// Sends framed bytes to every subscriber that `include` accepts.
    public func send(_ frame: [UInt8], to include: (Subscriber) -> Bool = { _ in true }) {
        let targets = subscribers.withLock { Array($0) }
        for (id, s) in targets where include(s) {
            if s.writer.bufferedByteCount > maxBufferedBytes || !s.writer.write(frame) {
                s.writer.finish()
                remove(id)
            }
        }
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
