import Glibc
import CLinux
import CZlib

/// One `GET /documents/{id}/events` stream.
final class Subscriber {
    let index: Int
    var fd: Int32
    let port: UInt16
    let path: String
    /// The document's delivery table, and this subscriber's place in it.
    let table: Deliveries
    let slot: Int
    /// The first stream was answered 200: the subscriber is in its document's audience.
    var started = false
    /// The newest change revision read, for `Last-Event-ID` when the stream is resumed.
    var lastRevision: Int
    /// When a stream the server ended is to be opened again (0: none pending), and how often it was.
    var resumeAt: UInt64 = 0
    var resumes = 0
    /// Its place in `Subscribers.subscribers` (a subscriber refused at once has none).
    var position = -1
    var headRead = false
    var chunked = false
    var open = true
    /// Bytes as read from the socket.
    let raw = ByteBuffer(capacity: 64 * 1024)
    /// The event stream itself, de-chunked, from the first frame not yet complete.
    let events = ByteBuffer(capacity: 64 * 1024)
    var decoder = ChunkedDecoder()
    /// A gzipped stream: the gzip piece (one chunk) read so far, and whether the header was.
    var gzip = false
    var gzipHeaderRead = false
    let piece = ByteBuffer(capacity: 16 * 1024)

    init(index: Int, fd: Int32, port: UInt16, path: String, table: Deliveries, slot: Int) {
        self.index = index
        self.fd = fd
        self.port = port
        self.path = path
        self.table = table
        self.slot = slot
        lastRevision = table.startRevision
    }

    /// Back to a stream not yet answered, on a new socket.
    func reset(fd: Int32) {
        self.fd = fd
        (headRead, chunked, open, gzip, gzipHeaderRead) = (false, false, true, false, false)
        decoder = ChunkedDecoder()
        raw.removeAll()
        events.removeAll()
        piece.removeAll()
    }
}

/// The SSE subscribers, all on one thread over epoll. Each read is timed once, then
/// de-chunked and scanned for `id: N\nevent: change\n` frames; every other frame (history,
/// presence, keep-alive comments, the retry preamble) is skipped.
///
/// Gzipped streams (the default, as a browser's EventSource asks for them) come as one gzip
/// piece per chunk, each deflated on its own (see the server's `GzipPiece`), and a change
/// batch's piece is the same bytes for every subscriber. A piece is inflated and scanned once:
/// the next subscriber whose piece is byte for byte the same (compared in full) is credited
/// with the same changes, at the time its own last byte arrived. An inflater per subscriber
/// would make the generator, which shares the machine with the server, the larger cost of the
/// fan-out.
final class Subscribers: ThreadBody {
    /// One delivery table per document of the plan.
    let tables: [Deliveries]
    private(set) var subscribers: [Subscriber] = []
    private let poller = Poller()
    private var byFD: [Int] = []
    /// Set before `run`: when to stop listening, and the edit phase for the CPU figures.
    var until: UInt64 = 0
    var editPhase = Phase(kind: .edit, start: 0, end: 0)
    private(set) var cpu = CPUWindow()
    private(set) var longestTurn = LongestTurn()
    private(set) var lost: [String: Int] = [:]
    /// Streams that never started: refused connections, and answers other than a 200 event
    /// stream, by status (or reason). Those subscribers are left out of the fan-out.
    private(set) var refused: [String: Int] = [:]
    /// Streams the server ended (or cut) mid-run and that were opened again, as EventSource
    /// does: after the server's `retry: 1000`, with `Last-Event-ID`, so the changes in between
    /// arrive late instead of never. At most `maxResumes` times per subscriber.
    private(set) var resumed = 0
    static let retryDelay: UInt64 = 1_000_000_000
    static let maxResumes = 20
    private var pendingResumes: [Subscriber] = []
    /// Every byte the streams carried (chunk framing included), for the bytes per change.
    private(set) var bytesRead = 0

    private let gzip: Bool
    /// Recently inflated pieces and the change revisions they carry, newest last.
    private var pieces: [(bytes: [UInt8], revisions: [Int])] = []
    private var inflater = z_stream()
    private let plain = ByteBuffer(capacity: 256 * 1024)
    private var revisions: [Int] = []
    /// Pieces inflated, and pieces recognised as already inflated.
    private(set) var piecesInflated = 0
    private(set) var piecesShared = 0

    init(tables: [Deliveries], gzip: Bool) {
        self.tables = tables
        self.gzip = gzip
        guard shim_inflateInit2_raw(&inflater) == Z_OK else { fail("cannot set up zlib") }
    }

    /// Opens every stream of the plan and reads each answer's head; false when they were not
    /// all answered by `deadline`. A stream refused (no connection, or not a 200 event
    /// stream) is counted in `refused` and left out; the run goes on with the others.
    func connect(plan: Plan, deadline: UInt64) -> Bool {
        var slots = Array(repeating: 0, count: plan.documents.count)
        for (i, p) in plan.subscribers.enumerated() {
            let slot = slots[p.document]
            slots[p.document] += 1
            guard let fd = Connection.open(port: p.port) else { refused["connect_failed", default: 0] += 1; continue }
            let s = Subscriber(index: i, fd: fd, port: p.port, path: "/documents/\(plan.documents[p.document].id)/events",
                               table: tables[p.document], slot: slot)
            let request = self.request(s, resume: false)
            let sent = request.withUnsafeBufferPointer { Connection.send(fd, $0.baseAddress!, $0.count) }
            guard sent == request.count else { Glibc.close(fd); refused["send_failed", default: 0] += 1; continue }
            s.position = subscribers.count
            subscribers.append(s)
            if Int(fd) >= byFD.count { byFD.append(contentsOf: repeatElement(-1, count: Int(fd) + 64 - byFD.count)) }
            byFD[Int(fd)] = subscribers.count - 1
            poller.add(fd)
        }
        while subscribers.contains(where: { !$0.headRead && $0.open }) {
            let now = Clock.now()
            if now >= deadline { return false }
            poll(timeout: min(deadline - now, 10_000_000))
        }
        return true
    }

    var ready: Int { subscribers.filter { $0.headRead && $0.open }.count }

    private func request(_ s: Subscriber, resume: Bool) -> [UInt8] {
        let encoding = gzip ? "Accept-Encoding: gzip\r\n" : ""
        let last = resume ? "Last-Event-ID: \(s.lastRevision)\r\n" : ""
        return Array("GET \(s.path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\(encoding)\(last)\r\n".utf8)
    }

    func run() {
        while true {
            let now = Clock.now()
            cpu.sample(now: now, start: editPhase.start, end: editPhase.end)
            longestTurn.tick(now)
            if now >= until { break }
            var wake = min(until, now + 10_000_000)
            if editPhase.start > now { wake = min(wake, editPhase.start) }
            if editPhase.end > now { wake = min(wake, editPhase.end) }
            if !pendingResumes.isEmpty {
                resumeDue(now: now)
                for s in pendingResumes { wake = min(wake, max(now, s.resumeAt)) }
            }
            poll(timeout: wake - now)
        }
        for s in subscribers where s.open { close(s, reason: nil) }
    }

    /// Opens again the streams whose retry delay is over.
    private func resumeDue(now: UInt64) {
        pendingResumes.removeAll { s in
            guard s.resumeAt <= now else { return false }
            s.resumeAt = 0
            s.resumes += 1
            guard let fd = Connection.open(port: s.port) else { lost["resume_connect_failed", default: 0] += 1; return true }
            let request = self.request(s, resume: true)
            let sent = request.withUnsafeBufferPointer { Connection.send(fd, $0.baseAddress!, $0.count) }
            guard sent == request.count else { Glibc.close(fd); lost["resume_send_failed", default: 0] += 1; return true }
            s.reset(fd: fd)
            if Int(fd) >= byFD.count { byFD.append(contentsOf: repeatElement(-1, count: Int(fd) + 64 - byFD.count)) }
            byFD[Int(fd)] = s.position
            poller.add(fd)
            return true
        }
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
        bytesRead += n
        let t = Clock.now()
        if !s.headRead {
            switch HTTPAnswer.head(s.raw.bytes, s.raw.count) {
            case .incomplete: return
            case .malformed: refuse(s, "malformed_answer_head"); return
            case .head(let head):
                guard head.status == 200 else { refuse(s, String(head.status)); return }
                guard head.gzip == gzip else { refuse(s, "unasked_content_encoding"); return }
                guard !gzip || head.chunked else { refuse(s, "gzip_not_chunked"); return }
                s.headRead = true
                if s.started { resumed += 1 }
                s.started = true
                s.chunked = head.chunked
                s.gzip = head.gzip
                s.raw.consume(head.length)
            }
        }
        if s.gzip {
            var bad = false
            let used = s.decoder.decode(s.raw.bytes, s.raw.count, data: { p, n in s.piece.append(p, n) },
                                        end: { if !bad && !takePiece(s, at: t) { bad = true } })
            s.raw.consume(used)
            if bad { close(s, reason: "bad_gzip_piece"); return }
            if s.decoder.state == .failed { close(s, reason: "bad_chunking"); return }
        } else if s.chunked {
            let used = s.decoder.decode(s.raw.bytes, s.raw.count) { p, n in take(p, n, into: s, at: t) }
            s.raw.consume(used)
            if s.decoder.state == .failed { close(s, reason: "bad_chunking"); return }
        } else {
            take(s.raw.bytes, s.raw.count, into: s, at: t)
            s.raw.consume(s.raw.count)
        }
        if s.decoder.state == .done { close(s, reason: "stream_ended") }
    }

    /// A complete gzip piece of `s`, the last byte read at `t`: the header first, then pieces
    /// of whole frames. False when it is not what the server must send.
    private func takePiece(_ s: Subscriber, at t: UInt64) -> Bool {
        defer { s.piece.removeAll() }
        let p = UnsafePointer(s.piece.bytes), n = s.piece.count
        if !s.gzipHeaderRead {
            // 1F 8B, deflate, no flags: the header the server sends alone, before any piece.
            guard n == 10, p[0] == 0x1F, p[1] == 0x8B, p[2] == 8, p[3] == 0 else { return false }
            s.gzipHeaderRead = true
            return true
        }
        if let known = pieces.lastIndex(where: { $0.bytes.count == n && $0.bytes.withUnsafeBufferPointer { memcmp($0.baseAddress!, p, n) == 0 } }) {
            piecesShared += 1
            for r in pieces[known].revisions { s.table.record(revision: r, subscriber: s.slot, at: t) }
            if let r = pieces[known].revisions.last, r > s.lastRevision { s.lastRevision = r }
            return true
        }
        guard inflate(p, n) else { return false }
        revisions.removeAll(keepingCapacity: true)
        let used = scan(plain.bytes, plain.count) { revisions.append($0) }
        // Every piece holds whole frames.
        guard used == plain.count else { return false }
        piecesInflated += 1
        for r in revisions { s.table.record(revision: r, subscriber: s.slot, at: t) }
        if let r = revisions.last, r > s.lastRevision { s.lastRevision = r }
        if pieces.count == 8 { pieces.removeFirst() }
        pieces.append((Array(UnsafeBufferPointer(start: p, count: n)), revisions))
        return true
    }

    /// Inflates one piece into `plain`, from an empty window, as the server deflated it. The
    /// trailer (a final empty block, then CRC and length) ends the stream and inflates to nothing.
    private func inflate(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        plain.removeAll()
        guard inflateReset(&inflater) == Z_OK else { return false }
        inflater.next_in = UnsafeMutablePointer(mutating: p)
        inflater.avail_in = uInt(n)
        while true {
            plain.reserve(64 * 1024)
            let room = plain.capacity - plain.end
            inflater.next_out = plain.base + plain.end
            inflater.avail_out = uInt(room)
            let status = CZlib.inflate(&inflater, Z_SYNC_FLUSH)
            plain.grow(by: room - Int(inflater.avail_out))
            switch status {
            case Z_STREAM_END: return true
            case Z_OK, Z_BUF_ERROR:
                if inflater.avail_in == 0 && inflater.avail_out > 0 { return true }
                if status == Z_BUF_ERROR && inflater.avail_out > 0 { return false }
            default: return false
            }
        }
    }

    /// Stream bytes read at `t`: scanned where they lie (the server frames whole events per
    /// chunk, so `events` is mostly empty and a read is copied only by the kernel); only a
    /// frame cut by a chunk or a read waits in `events` for the rest of it, so the common read
    /// is not copied twice (see docs/performance.md).
    private func take(_ p: UnsafePointer<UInt8>, _ n: Int, into s: Subscriber, at t: UInt64) {
        let table = s.table, slot = s.slot
        let record = { (revision: Int) in
            table.record(revision: revision, subscriber: slot, at: t)
            if revision > s.lastRevision { s.lastRevision = revision }
        }
        if s.events.count == 0 {
            let used = scan(p, n, record)
            if used < n { s.events.append(p + used, n - used) }
        } else {
            s.events.append(p, n)
            s.events.consume(scan(s.events.bytes, s.events.count, record))
        }
    }

    /// Walks the complete frames at the head of `p[0..<n]`, handing every change frame's `id`
    /// to `change`, and returns the bytes they took. An `id:` line is parsed as it is found, an
    /// `event: change` line is matched as two words, any other line is ended by `memchr`, not
    /// searched byte by byte for the change marker (see docs/performance.md).
    @inline(__always)
    private func scan(_ p: UnsafePointer<UInt8>, _ n: Int, _ change: (Int) -> Void) -> Int {
        var i = 0, taken = 0
        var id = -1, isChange = false
        while i < n {
            var e: Int
            if p[i] == 0x0A {
                // The blank line that ends a frame.
                if isChange, id >= 0 { change(id) }
                (id, isChange, taken) = (-1, false, i + 1)
                i += 1
                continue
            } else if n - i > 13, Self.isChangeLine(p + i), p[i + 13] == 0x0A {
                isChange = true
                e = i + 13
            } else if n - i > 4, let (revision, end) = Self.idLine(p + i, n - i) {
                id = revision
                e = i + end
            } else {
                guard let hit = memchr(p + i, 0x0A, n - i) else { break }
                e = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - p
            }
            i = e + 1
        }
        return taken
    }

    /// `event: change`, 13 bytes, as two overlapping 8-byte words.
    private static let changeWords: (UInt64, UInt64) = Array("event: change".utf8).withUnsafeBytes {
        ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 5, as: UInt64.self))
    }

    private static func isChangeLine(_ p: UnsafePointer<UInt8>) -> Bool {
        let raw = UnsafeRawPointer(p)
        return raw.loadUnaligned(as: UInt64.self) == changeWords.0
            && raw.loadUnaligned(fromByteOffset: 5, as: UInt64.self) == changeWords.1
    }

    /// An `id: N` line at `p`: N and the offset of its newline; nil for any other line (or
    /// one not complete in `n` bytes, which `memchr` then finds incomplete too).
    private static func idLine(_ p: UnsafePointer<UInt8>, _ n: Int) -> (Int, Int)? {
        guard p[0] == UInt8(ascii: "i"), p[1] == UInt8(ascii: "d"), p[2] == UInt8(ascii: ":"),
              p[3] == UInt8(ascii: " ") else { return nil }
        var revision = 0
        var k = 4
        while k < min(n, 24) {
            let b = p[k]
            if b == 0x0A { return k > 4 ? (revision, k) : nil }
            guard b >= 48, b <= 57 else { return nil }
            revision = revision * 10 + Int(b - 48)
            k += 1
        }
        return nil
    }

    /// A stream that did not start: counted apart from the streams lost later (a resumed
    /// stream refused is one of those, and is not tried again).
    private func refuse(_ s: Subscriber, _ reason: String) {
        if s.started {
            lost["resume_refused_\(reason)", default: 0] += 1
        } else {
            refused[reason, default: 0] += 1
        }
        close(s, reason: nil)
    }

    /// Ends a stream; one the server ended or cut (`reason`) is opened again after the retry
    /// delay while the run lasts.
    private func close(_ s: Subscriber, reason: String?) {
        guard s.open else { return }
        s.open = false
        if let reason { lost[reason, default: 0] += 1 }
        poller.remove(s.fd)
        byFD[Int(s.fd)] = -1
        Glibc.close(s.fd)
        let at = Clock.now() + Self.retryDelay
        if reason != nil, s.started, s.resumes < Self.maxResumes, at < until {
            s.resumeAt = at
            pendingResumes.append(s)
        }
    }
}
