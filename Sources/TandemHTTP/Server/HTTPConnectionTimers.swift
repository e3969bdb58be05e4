/// When a connection last made progress each way, and which deadline that progress has
/// missed. Reads no clock: every method is given the time.
///
/// Promises: a peer that keeps sending (or taking) bytes at the configured minimum rate is
/// never cut off for slowness; silence longer than the matching timeout always is.
struct HTTPConnectionTimers {
    let timeouts: ServerCore.TimeoutNanos
    /// When the current request head began arriving.
    var headStarted: UInt64 = 0
    private(set) var lastRead: UInt64
    private var lastWriteProgress: UInt64
    private(set) var lingerStarted: UInt64 = 0
    /// When the current body began arriving (0: no body), and how much of it has come since.
    private var bodyStarted: UInt64 = 0
    private var bodyReceived = 0
    /// When the socket last refused output with more queued (0: not since the queue emptied),
    /// and how much the peer has taken since.
    private var writeBlockedSince: UInt64 = 0
    private var writtenWhileBlocked = 0

    /// How long a lingering close waits for the peer's EOF.
    static let lingerNanos: UInt64 = 2_000_000_000

    /// No byte has come since accept: the head timeout runs from accept, not the idle one, so
    /// connections that never speak cannot pile up for a minute each.
    private(set) var silentSinceAccept = true

    init(timeouts: ServerCore.TimeoutNanos, now: UInt64) {
        self.timeouts = timeouts
        headStarted = now
        lastRead = now
        lastWriteProgress = now
    }

    // MARK: progress

    mutating func read(now: UInt64, startsHead: Bool) {
        silentSinceAccept = false
        lastRead = now
        if startsHead { headStarted = now }
    }

    /// After a read's requests are parsed: `bytes` of it were body, and a body is (or is no
    /// longer) being read.
    mutating func noteBody(_ bytes: Int, readingBody: Bool, now: UInt64) {
        if !readingBody {
            bodyStarted = 0
        } else if bodyStarted == 0 {
            bodyStarted = now
            bodyReceived = 0
        } else {
            bodyReceived += bytes
        }
    }

    /// `100 Continue` went out: the client waited for it before sending the body, so its
    /// clocks start now.
    mutating func bodyInvited(now: UInt64) {
        lastRead = now
        bodyStarted = now
        bodyReceived = 0
    }

    mutating func wrote(_ n: Int, now: UInt64) {
        lastWriteProgress = now
        if writeBlockedSince != 0 { writtenWhileBlocked += n }
    }

    mutating func writeBlocked(now: UInt64) {
        if writeBlockedSince == 0 {
            writeBlockedSince = now
            writtenWhileBlocked = 0
        }
    }

    mutating func drained(now: UInt64) {
        writeBlockedSince = 0
        lastWriteProgress = now
    }

    mutating func lingers(now: UInt64) {
        lingerStarted = now
    }

    // MARK: deadlines

    func lingerExpired(now: UInt64) -> Bool {
        now &- lingerStarted > Self.lingerNanos
    }

    /// Output waits and the peer took none of it for the write timeout, or takes it slower
    /// than the minimum rate.
    func outputStalled(now: UInt64) -> Bool {
        let stalled = now &- lastWriteProgress > timeouts.write
        let tooSlow = writeBlockedSince != 0 && now &- writeBlockedSince > ServerCore.TimeoutNanos.allowance(
            grace: timeouts.write, bytes: writtenWhileBlocked, rate: timeouts.minimumWriteRate)
        return stalled || tooSlow
    }

    /// Nothing came or went for the idle timeout (during shutdown, for `shutdownQuiet`).
    func idleExpired(now: UInt64, shuttingDown: Bool) -> Bool {
        now &- max(lastRead, lastWriteProgress) >= (shuttingDown ? Self.shutdownQuiet : timeouts.idle)
    }

    /// How long a kept-alive connection must have been quiet before shutdown closes it: a
    /// balancer reusing it right then gets its request answered instead of a reset it may not
    /// retry (nginx never resends a POST it wrote). Those quiet longer close at once.
    static let shutdownQuiet: UInt64 = 100_000_000

    /// The body fell silent, or arrives slower than the minimum rate. A body whose start was
    /// not seen yet starts its clock now.
    mutating func bodyOverdue(now: UInt64) -> Bool {
        if bodyStarted == 0 {
            bodyStarted = now
            bodyReceived = 0
        }
        let silent = now &- lastRead > timeouts.bodyRead
        let tooSlow = now &- bodyStarted > ServerCore.TimeoutNanos.allowance(
            grace: timeouts.bodyRead, bytes: bodyReceived, rate: timeouts.minimumBodyRate)
        return silent || tooSlow
    }

    /// Accepted a head timeout ago and never sent a byte.
    func silentTooLong(now: UInt64) -> Bool {
        silentSinceAccept && now &- headStarted > timeouts.headerRead
    }

    func headOverdue(now: UInt64) -> Bool {
        now &- headStarted > timeouts.headerRead
    }
}
