import CLibpq
import Foundation
import Glibc

/// The cluster's doorbell: a thread with a connection of its own that LISTENs on the store's
/// channel and calls `ring` when another unit committed, and at least every `interval`
/// seconds anyway, so a notification lost (a dropped connection, a restarted server) only
/// delays. The feed (`clusterEntries`) is the truth; a ring only says "look".
///
/// When the connection breaks it reconnects every second and rings once it is back (what
/// was committed meanwhile is in the feed).
public final class ClusterListener: Sendable {
    private let conninfo: String
    private let schema: String?
    private let channel: String
    /// This node: its own commits' notifications are not news.
    private let node: String
    private let interval: Double
    private let ring: @Sendable () -> Void
    private let stopped = Locked(false)
    private let finished = Locked(false)

    public init(store: PostgresStore, interval: Double = 1, ring: @escaping @Sendable () -> Void) {
        conninfo = store.url
        schema = store.schema
        channel = store.channel
        node = store.nodeID
        self.interval = interval
        self.ring = ring
        let thread = Thread { [self] in run() }
        thread.name = "TandemStore cluster listener"
        thread.start()
    }

    public func stop() {
        stopped.withLock { $0 = true }
    }

    private var isStopped: Bool { stopped.withLock { $0 } }

    private func run() {
        defer { finished.withLock { $0 = true } }
        var connection: PGConnection?
        while !isStopped {
            if connection == nil || connection!.isBroken {
                connection?.close()
                connection = try? PGConnection(conninfo: conninfo, schema: schema)
                guard let c = connection, (try? c.execute("LISTEN \(PGConnection.identifier(channel))")) != nil else {
                    connection = nil
                    Thread.sleep(forTimeInterval: 1)
                    continue
                }
                ring()
            }
            let rung = connection!.waitForNotifications(timeout: min(interval, 0.25), ignoring: node)
            if rung { ring() } else { tick() }
        }
        connection?.close()
    }

    /// Rings every `interval` without a notification.
    private func tick() {
        let now = Date().timeIntervalSince1970
        if now - lastTick.withLock({ $0 }) >= interval {
            lastTick.withLock { $0 = now }
            ring()
        }
    }

    private let lastTick = Locked(0.0)
}

extension PGConnection {
    /// Waits up to `timeout` seconds for notifications; true if any came whose payload is not
    /// `ignoring` (all are consumed).
    func waitForNotifications(timeout: Double, ignoring: String) -> Bool {
        guard let raw = rawConnection else { return false }
        var fd = pollfd(fd: PQsocket(raw), events: Int16(POLLIN), revents: 0)
        let ready = poll(&fd, 1, Int32(timeout * 1000))
        guard ready > 0 else { return false }
        guard PQconsumeInput(raw) == 1 else { return false }
        var any = false
        while let note = PQnotifies(raw) {
            if let extra = note.pointee.extra, String(cString: extra) != ignoring { any = true }
            PQfreemem(note)
        }
        return any
    }
}
