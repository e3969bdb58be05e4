import CLinux
import Glibc

/// What the requests of one phase came to, on every session together.
struct PhaseRecord {
    var phase: Phase
    /// Nanoseconds from sending a request to having read its whole answer (200s only).
    var latencies: [UInt64] = []
    /// Non-200 answers by status, and failures by name.
    var errors: [String: Int] = [:]
    /// Thread and process CPU at the phase's bounds, to tell a saturated generator apart.
    var cpu = CPUWindow()

    init(phase: Phase) { self.phase = phase }
}

/// The typing sessions, all on one thread over epoll, following the timetable phase by
/// phase on the same keep-alive connections.
final class EditSessions: ThreadBody {
    let timetable: Timetable
    let sessions: [EditSession]
    let poller = Poller()
    private var byFD: [Int] = []
    private(set) var records: [PhaseRecord]
    /// Every acknowledged edit: its document, its revision, the session it answered and
    /// when its answer had been read.
    private(set) var ackDocuments: [Int32] = []
    private(set) var ackRevisions: [Int] = []
    private(set) var ackSessions: [Int32] = []
    private(set) var ackTimes: [UInt64] = []
    /// The newest acknowledged revision of each document and the length the session computed
    /// for it: the orchestrator checks it against the document, which checks the answer parsing.
    private(set) var newest: [(revision: Int, length: Int)]
    /// Connections the server closed while they waited for their next phase (its idle
    /// timeout), reopened at once: not errors, as no request was lost.
    private(set) var idleReconnects = 0
    private(set) var longestTurn = LongestTurn()
    /// Answers still awaited this long after the last phase are given up on.
    static let grace: UInt64 = 5_000_000_000
    static let maxReconnects = 10

    init(arguments: Arguments, timetable: Timetable) {
        self.timetable = timetable
        let plan = arguments.plan
        sessions = plan.sessions.enumerated().map {
            EditSession(index: $0.offset, plan: $0.element, documents: plan.documents, seed: arguments.seed)
        }
        records = timetable.phases.map { PhaseRecord(phase: $0) }
        newest = Array(repeating: (-1, -1), count: plan.documents.count)
        ackDocuments.reserveCapacity(1 << 18)
        ackRevisions.reserveCapacity(1 << 18)
        ackSessions.reserveCapacity(1 << 18)
        ackTimes.reserveCapacity(1 << 18)
    }

    func run() {
        for s in sessions { connect(s) }
        let phases = timetable.phases
        let hardEnd = timetable.lastEnd + Self.grace
        while true {
            let now = Clock.now()
            for p in records.indices { records[p].cpu.sample(now: now, start: phases[p].start, end: phases[p].end) }
            if now >= phases[0].start { longestTurn.tick(now) }
            var busy = false
            for s in sessions where s.alive {
                advance(s, now: now)
                if s.inFlight >= 0 { busy = true }
            }
            if !busy && sessions.allSatisfy({ !$0.alive || $0.phase >= phases.count }) { break }
            if now >= hardEnd {
                for s in sessions where s.alive && s.inFlight >= 0 { count("no_answer_in_time", phase: s.inFlight) }
                break
            }
            // Wake for the next phase bound at the latest, so sends and CPU samples are on time.
            var wake = now + 10_000_000
            for p in phases {
                if p.start > now { wake = min(wake, p.start) }
                if p.end > now { wake = min(wake, p.end) }
            }
            poller.wait(timeoutNanos: wake > now ? wake - now : 0) { fd, events in
                guard fd >= 0, Int(fd) < byFD.count, byFD[Int(fd)] >= 0 else { return }
                let s = sessions[byFD[Int(fd)]]
                if events & EPOLLOUT.rawValue != 0 { flush(s) }
                if s.alive && events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
                    receive(s)
                }
            }
        }
        for s in sessions where s.fd >= 0 {
            poller.remove(s.fd)
            close(s.fd)
            s.fd = -1
        }
    }

    // MARK: requests

    /// Moves past the phases that are over and sends when the current one is on.
    private func advance(_ s: EditSession, now: UInt64) {
        guard s.alive, s.inFlight < 0 else { return }
        let phases = timetable.phases
        while s.phase < phases.count && now >= phases[s.phase].end { s.phase += 1 }
        guard s.phase < phases.count, now >= phases[s.phase].start else { return }
        send(s, phase: s.phase)
    }

    private func send(_ s: EditSession, phase: Int) {
        let kind = timetable.phases[phase].kind
        // Pings name no document and leave the turn where it is.
        let slot = s.next
        if kind != .ping { s.next = slot + 1 == s.documents.count ? 0 : slot + 1 }
        let at = Int(s.random(below: UInt64(s.lengths[slot]) + 1))
        // The body of the ping and of the no-op edit has the size of an edit's, so every
        // phase parses the same bytes.
        s.body.removeAll(keepingCapacity: true)
        s.body.append(contentsOf: Self.insertOpen)
        if kind == .edit { s.body.append(UInt8(ascii: "a") + UInt8(s.random(below: 26))) }
        s.body.append(contentsOf: Self.atKey)
        Self.appendDecimal(at, to: &s.body)
        s.body.append(contentsOf: Self.baseKey)
        Self.appendDecimal(s.revisions[slot], to: &s.body)
        s.body.append(UInt8(ascii: "}"))
        if kind != .edit { s.body.append(UInt8(ascii: " ")) }

        let out = s.output
        out.removeAll()
        out.append(kind == .ping ? s.pingPrefix : s.editPrefixes[slot])
        out.append(Self.contentLengthName)
        out.appendDecimal(s.body.count)
        out.append(Bytes.crlfcrlf)
        out.append(s.body)
        s.inFlight = phase
        s.inFlightSlot = slot
        s.sentAt = Clock.now()
        flush(s)
    }

    private func flush(_ s: EditSession) {
        let out = s.output
        if out.count > 0 {
            let sent = Connection.send(s.fd, out.bytes, out.count)
            if sent < 0 { lost(s, "send_failed"); return }
            out.consume(sent)
        }
        // Only a request the socket could not take at once needs EPOLLOUT.
        let pending = out.count > 0
        if pending != s.watchingWrites {
            s.watchingWrites = pending
            poller.watch(s.fd, writable: pending)
        }
    }

    // MARK: answers

    private func receive(_ s: EditSession) {
        let n = s.input.read(from: s.fd, atLeast: 2048)
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return }
        if n <= 0 { lost(s, n == 0 ? "connection_closed" : "read_failed"); return }
        let t = Clock.now()
        while s.input.count > 0 {
            let head: HTTPAnswer.Head
            switch HTTPAnswer.head(s.input.bytes, s.input.count) {
            case .incomplete: return
            case .malformed: lost(s, "malformed_answer"); return
            case .head(let h): head = h
            }
            guard let bodyLength = head.contentLength ?? ((head.status < 200 || head.status == 204 || head.status == 304) ? 0 : nil) else {
                lost(s, "answer_without_content_length")
                return
            }
            guard s.input.count >= head.length + bodyLength else { return }
            answered(s, head: head, body: s.input.bytes + head.length, bodyLength: bodyLength, at: t)
            s.input.consume(head.length + bodyLength)
        }
        advance(s, now: t)
    }

    private func answered(_ s: EditSession, head: HTTPAnswer.Head, body: UnsafePointer<UInt8>, bodyLength: Int, at t: UInt64) {
        let phase = s.inFlight
        guard phase >= 0 else { count("unsolicited_answer", phase: s.phase); return }
        s.inFlight = -1
        guard head.status == 200 else {
            count(String(head.status), phase: phase)
            return
        }
        records[phase].latencies.append(t - s.sentAt)
        guard timetable.phases[phase].kind == .edit else { return }
        guard let answer = HTTPAnswer.edit(body, bodyLength) else {
            count("unparsed_edit_answer", phase: phase)
            return
        }
        let slot = s.inFlightSlot, document = s.documents[slot]
        s.revisions[slot] = answer.revision
        s.lengths[slot] = answer.length
        ackDocuments.append(Int32(document))
        ackRevisions.append(answer.revision)
        ackSessions.append(Int32(s.index))
        ackTimes.append(t)
        if answer.revision > newest[document].revision { newest[document] = answer }
    }

    // MARK: connections

    private func connect(_ s: EditSession) {
        guard let fd = Connection.open(port: s.port) else {
            s.alive = false
            count("connect_failed", phase: min(s.phase, records.count - 1))
            return
        }
        s.fd = fd
        if Int(fd) >= byFD.count { byFD.append(contentsOf: repeatElement(-1, count: Int(fd) + 64 - byFD.count)) }
        byFD[Int(fd)] = s.index
        poller.add(fd)
    }

    /// The connection broke: the request in flight is an error; the session reconnects
    /// (a bounded number of times) and carries on from its last answer.
    private func lost(_ s: EditSession, _ reason: String) {
        // Between phases (several configurations take turns on one machine) a session may
        // wait longer than the server's idle timeout: its close loses nothing.
        let idle = s.inFlight < 0 && reason == "connection_closed" && s.input.count == 0 && s.output.count == 0
        if idle {
            idleReconnects += 1
        } else {
            count(reason, phase: s.inFlight >= 0 ? s.inFlight : min(s.phase, records.count - 1))
        }
        s.inFlight = -1
        s.input.removeAll()
        s.output.removeAll()
        s.watchingWrites = false
        if s.fd >= 0 {
            poller.remove(s.fd)
            byFD[Int(s.fd)] = -1
            close(s.fd)
            s.fd = -1
        }
        if !idle { s.reconnects += 1 }
        if s.reconnects > Self.maxReconnects { s.alive = false; return }
        connect(s)
    }

    private func count(_ error: String, phase: Int) {
        records[phase].errors[error, default: 0] += 1
    }

    // MARK: bytes

    static let insertOpen: [UInt8] = Array("{\"insert\":\"".utf8)
    static let atKey: [UInt8] = Array("\",\"at\":".utf8)
    static let baseKey: [UInt8] = Array(",\"base\":".utf8)
    static let contentLengthName: [UInt8] = Array("Content-Length: ".utf8)

    /// `value` is never negative here (positions, revisions, lengths).
    static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value >= 10 { appendDecimal(value / 10, to: &out) }
        out.append(UInt8(48 + value % 10))
    }
}
