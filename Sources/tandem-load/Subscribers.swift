import Glibc
import CLinux

/// One `GET /documents/{id}/events` stream.
final class Subscriber {
    let index: Int
    let fd: Int32
    var headRead = false
    var chunked = false
    var open = true
    /// Bytes as read from the socket.
    let raw = ByteBuffer(capacity: 64 * 1024)
    /// The event stream itself, de-chunked, from the first frame not yet complete.
    let events = ByteBuffer(capacity: 64 * 1024)
    var decoder = ChunkedDecoder()

    init(index: Int, fd: Int32) {
        self.index = index
        self.fd = fd
    }
}

/// The SSE subscribers, all on one thread over epoll. Each read is timed once, then
/// de-chunked and scanned for `id: N\nevent: change\n` frames; every other frame (history,
/// presence, keep-alive comments, the retry preamble) is skipped.
final class Subscribers: ThreadBody {
    let deliveries: Deliveries
    private(set) var subscribers: [Subscriber] = []
    private let poller = Poller()
    private var byFD: [Int] = []
    /// Set before `run`: when to stop listening, and the edit phase for the CPU figures.
    var until: UInt64 = 0
    var editPhase = Phase(kind: .edit, start: 0, end: 0)
    private(set) var cpu = CPUWindow()
    private(set) var longestTurn = LongestTurn()
    private(set) var lost: [String: Int] = [:]

    init(deliveries: Deliveries) {
        self.deliveries = deliveries
    }

    /// Opens every stream and reads each answer's head; false when they were not all
    /// there by `deadline`.
    func connect(port: UInt16, document: String, count: Int, deadline: UInt64) -> Bool {
        let request = Array("GET /documents/\(document)/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".utf8)
        for i in 0..<count {
            guard let fd = Connection.open(port: port) else { fail("cannot connect subscriber \(i): errno \(errno)") }
            let sent = request.withUnsafeBufferPointer { Connection.send(fd, $0.baseAddress!, $0.count) }
            guard sent == request.count else { fail("cannot send the request of subscriber \(i)") }
            let s = Subscriber(index: i, fd: fd)
            subscribers.append(s)
            if Int(fd) >= byFD.count { byFD.append(contentsOf: repeatElement(-1, count: Int(fd) + 64 - byFD.count)) }
            byFD[Int(fd)] = i
            poller.add(fd)
        }
        while subscribers.contains(where: { !$0.headRead && $0.open }) {
            let now = Clock.now()
            if now >= deadline { return false }
            poll(timeout: min(deadline - now, 10_000_000))
        }
        return ready == count
    }

    var ready: Int { subscribers.filter { $0.headRead && $0.open }.count }

    func run() {
        while true {
            let now = Clock.now()
            cpu.sample(now: now, start: editPhase.start, end: editPhase.end)
            longestTurn.tick(now)
            if now >= until { break }
            var wake = min(until, now + 10_000_000)
            if editPhase.start > now { wake = min(wake, editPhase.start) }
            if editPhase.end > now { wake = min(wake, editPhase.end) }
            poll(timeout: wake - now)
        }
        for s in subscribers where s.open { close(s, reason: nil) }
    }

    private func poll(timeout: UInt64) {
        poller.wait(timeoutNanos: timeout) { fd, _ in
            guard fd >= 0, Int(fd) < byFD.count, byFD[Int(fd)] >= 0 else { return }
            receive(subscribers[byFD[Int(fd)]])
        }
    }

    private func receive(_ s: Subscriber) {
        // Level-triggered: what one read leaves behind wakes the next wait.
        let n = s.raw.read(from: s.fd, atLeast: 32 * 1024)
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return }
        if n <= 0 { close(s, reason: n == 0 ? "closed_by_server" : "read_failed"); return }
        let t = Clock.now()
        if !s.headRead {
            switch HTTPAnswer.head(s.raw.bytes, s.raw.count) {
            case .incomplete: return
            case .malformed: fail("subscriber \(s.index): malformed answer head")
            case .head(let head):
                guard head.status == 200 else { fail("subscriber \(s.index): status \(head.status) for the event stream") }
                s.headRead = true
                s.chunked = head.chunked
                s.raw.consume(head.length)
            }
        }
        if s.chunked {
            let used = s.decoder.decode(s.raw.bytes, s.raw.count, into: s.events)
            s.raw.consume(used)
            if s.decoder.state == .failed { close(s, reason: "bad_chunking"); return }
        } else {
            s.events.append(s.raw.bytes, s.raw.count)
            s.raw.consume(s.raw.count)
        }
        scan(s, at: t)
        if s.decoder.state == .done { close(s, reason: "stream_ended") }
    }

    /// Takes every complete frame (ended by a blank line) out of `events`, recording the change
    /// frames. Their marker is looked for directly (`memmem` skips a history or presence frame
    /// in a few strides): splitting every line with `memchr` made the scan a third of this
    /// thread's time, eight lines of two frames per change and subscriber.
    private func scan(_ s: Subscriber, at t: UInt64) {
        let p = UnsafePointer(s.events.bytes)
        guard let end = Self.completeFrames(p, s.events.count) else { return }
        var i = 0
        while i < end {
            guard let hit = Self.changeMarker.withUnsafeBufferPointer({ memmem(p + i, end - i, $0.baseAddress!, $0.count) }) else { break }
            let marker = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - p
            // The frame's first line, `id: N`, ends where the marker begins.
            var line = marker
            while line > i, p[line - 1] != 0x0A { line -= 1 }
            record(p + line, marker - line, subscriber: s.index, at: t)
            i = marker + Self.changeMarker.count
        }
        s.events.consume(end)
    }

    /// The length of the complete frames at the head of `p`: up to and including the last
    /// blank line, nil when there is none.
    static func completeFrames(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int? {
        var limit = n
        while limit > 1, let hit = memrchr(p, 0x0A, limit) {
            let at = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - p
            if at > 0, p[at - 1] == 0x0A { return at + 1 }
            limit = at
        }
        return nil
    }

    static let changeMarker: [UInt8] = Array("\nevent: change\n".utf8)

    /// `id: N`, the line before a change marker: a delivery of revision N.
    private func record(_ p: UnsafePointer<UInt8>, _ n: Int, subscriber: Int, at t: UInt64) {
        guard n > 4, n < 24, p[0] == UInt8(ascii: "i"), p[1] == UInt8(ascii: "d"),
              p[2] == UInt8(ascii: ":"), p[3] == UInt8(ascii: " ") else { return }
        var revision = 0
        for k in 4..<n {
            guard p[k] >= 48, p[k] <= 57 else { return }
            revision = revision * 10 + Int(p[k] - 48)
        }
        deliveries.record(revision: revision, subscriber: subscriber, at: t)
    }

    private func close(_ s: Subscriber, reason: String?) {
        guard s.open else { return }
        s.open = false
        if let reason { lost[reason, default: 0] += 1 }
        poller.remove(s.fd)
        byFD[Int(s.fd)] = -1
        Glibc.close(s.fd)
    }
}
