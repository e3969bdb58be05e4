import Dispatch
import Synchronization
import TandemHTTP

/// The mirrors of documents held on other nodes that this node's subscribers follow
/// (`StreamMirror`), one per document: made by the first subscriber, closed a moment after the
/// last leaves (so the owner may move the document), and at most `limit` at once; past it, a
/// subscriber's stream is relayed whole, as before mirrors.
final class StreamMirrors: Sendable {
    private let mirrors = Mutex<[String: StreamMirror]>([:])
    /// The cluster's key, which the owners ask of a mirror's stream.
    let key: String
    let limit: Int
    let coalescing: Double
    /// How long a mirror nobody follows stays open (a page reloading keeps it).
    static let lingerSeconds = 2.0

    init(key: String, limit: Int = 1024, coalescing: Double) {
        self.key = key
        self.limit = limit
        self.coalescing = coalescing
    }

    var count: Int { mirrors.withLock { $0.count } }
    var subscribers: Int { mirrors.withLock { Array($0.values) }.reduce(0) { $0 + $1.channel.count } }

    /// The open mirror of `id` held at `address`, opened on this loop if there is none (an
    /// older one, of an owner since replaced, is closed); nil past the limit or off a loop.
    func mirror(of id: String, path: String, at address: String, upstream: HTTPUpstream) -> StreamMirror? {
        guard let pool = HTTPClientPool.current else { return nil }
        var stale: StreamMirror?
        let made = mirrors.withLock { all -> (StreamMirror, fresh: Bool)? in
            if let existing = all[id] {
                if existing.address == address, !existing.isClosed { return (existing, false) }
                stale = existing
                all[id] = nil
            }
            guard all.count < limit else { return nil }
            let mirror = StreamMirror(id: id, address: address, coalescing: coalescing, onCountChange: { [weak self] mirror, _ in
                self?.countChanged(mirror)
            }, onClose: { [weak self] mirror in self?.forget(mirror) })
            all[id] = mirror
            return (mirror, true)
        }
        stale?.close()
        guard let (mirror, fresh) = made else { return nil }
        if fresh {
            mirror.open(path: path, upstream: upstream, key: key, pool: pool)
            // A mirror nobody joins (the owner refused every subscriber) does not stay.
            lingerCheck(mirror)
        }
        return mirror
    }

    /// A subscriber's join ended (see `MirrorJoin`).
    func joinEnded(_ mirror: StreamMirror) { countChanged(mirror) }

    private func countChanged(_ mirror: StreamMirror) {
        if mirror.channel.count == 0 { lingerCheck(mirror) }
    }

    /// Closes `mirror` if nobody follows it `lingerSeconds` from now.
    private func lingerCheck(_ mirror: StreamMirror) {
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.lingerSeconds) {
            // Closing it takes it out of the table (`forget`, its `onClose`).
            guard mirror.channel.count == 0, mirror.joining.load(ordering: .relaxed) == 0 else { return }
            mirror.close()
        }
    }

    private func forget(_ mirror: StreamMirror) {
        mirrors.withLock { all in if all[mirror.id] === mirror { all[mirror.id] = nil } }
    }

    /// Ends every mirror (shutdown).
    func closeAll() {
        let all = mirrors.withLock { all -> [StreamMirror] in
            defer { all = [:] }
            return Array(all.values)
        }
        for mirror in all { mirror.close() }
    }
}
