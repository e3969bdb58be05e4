import Glibc

/// What is sent in a phase: a real edit, the bare HTTP layer (`POST /ping`), or an edit that
/// changes nothing (route, body decoding and document lock, but nothing stored or broadcast).
enum PhaseKind: String, CaseIterable {
    case edit, ping, noop
}

struct Phase {
    var kind: PhaseKind
    var start: UInt64
    var end: UInt64
}

/// The orchestrator's timetable, in CLOCK_MONOTONIC nanoseconds.
struct Timetable {
    var phases: [Phase]
    /// Subscribers listen until then: late frames of the edit phase still count.
    var subscribersUntil: UInt64

    var lastEnd: UInt64 { phases.map(\.end).max() ?? 0 }

    /// `edit A B ping A B … noop A B subscribers-until T`: phases in any number and order
    /// (the orchestrator alternates edits and pings), seconds as `time.monotonic()` gives them.
    static func parse(_ line: String) -> Timetable? {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init)
        var phases: [Phase] = []
        var until: UInt64?
        var i = 0
        while i < words.count {
            if words[i] == "subscribers-until", i + 1 < words.count, let t = Double(words[i + 1]) {
                until = Clock.nanoseconds(fromSeconds: t)
                i += 2
            } else if let kind = PhaseKind(rawValue: words[i]), i + 2 < words.count,
                      let a = Double(words[i + 1]), let b = Double(words[i + 2]), b >= a {
                phases.append(Phase(kind: kind, start: Clock.nanoseconds(fromSeconds: a), end: Clock.nanoseconds(fromSeconds: b)))
                i += 3
            } else {
                return nil
            }
        }
        guard let until, !phases.isEmpty else { return nil }
        return Timetable(phases: phases, subscribersUntil: until)
    }
}

struct PlanError: Error {
    var message: String
}

/// Who goes where: the documents, each typing session's node and documents, and each
/// subscriber's node and document. Built from `--plan` or, for one node and one document,
/// from the plain flags.
struct Plan {
    struct Document {
        var id: String
        var startRevision: Int
        var startLength: Int
    }

    struct Session {
        var port: UInt16
        var token: String
        /// Indices into `documents`: the session edits them in turn, one per request.
        var documents: [Int]
    }

    struct Subscriber {
        var port: UInt16
        var document: Int
    }

    var documents: [Document] = []
    var sessions: [Session] = []
    var subscribers: [Subscriber] = []

    /// The plan file: one line per document, session or subscriber, in any order except that
    /// documents are numbered by their order (blank lines and `#` comments are skipped):
    ///
    ///     document ID START-REVISION START-LENGTH
    ///     session PORT TOKEN DOC[,DOC...]
    ///     subscriber PORT DOC
    static func parse(_ text: String) -> Result<Plan, PlanError> {
        var plan = Plan()
        var pending: [(line: Int, words: [String])] = []
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let words = raw.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            guard let first = words.first, !first.hasPrefix("#") else { continue }
            if first == "document" {
                guard words.count == 4, let r = Int(words[2]), let l = Int(words[3]), r >= 0, l >= 0 else {
                    return .failure(PlanError(message: "plan line \(n + 1): document ID START-REVISION START-LENGTH"))
                }
                plan.documents.append(Document(id: words[1], startRevision: r, startLength: l))
            } else {
                pending.append((n + 1, words))
            }
        }
        for (n, words) in pending {
            func document(_ word: Substring) -> Int? {
                guard let d = Int(word), d >= 0, d < plan.documents.count else { return nil }
                return d
            }
            switch words[0] {
            case "session":
                guard words.count == 4, let port = UInt16(words[1]), port != 0 else {
                    return .failure(PlanError(message: "plan line \(n): session PORT TOKEN DOC[,DOC...]"))
                }
                let docs = words[3].split(separator: ",").map(document)
                guard !docs.isEmpty, docs.allSatisfy({ $0 != nil }) else { return .failure(PlanError(message: "plan line \(n): unknown document")) }
                plan.sessions.append(Session(port: port, token: words[2], documents: docs.map { $0! }))
            case "subscriber":
                guard words.count == 3, let port = UInt16(words[1]), port != 0, let d = document(Substring(words[2])) else {
                    return .failure(PlanError(message: "plan line \(n): subscriber PORT DOC"))
                }
                plan.subscribers.append(Subscriber(port: port, document: d))
            default:
                return .failure(PlanError(message: "plan line \(n): unknown line \(words[0])"))
            }
        }
        guard !plan.documents.isEmpty, !plan.sessions.isEmpty else { return .failure(PlanError(message: "the plan has no documents or no sessions")) }
        return .success(plan)
    }
}

struct Arguments {
    var ports: [UInt16] = []
    var document = ""
    var startRevision = 0
    var startLength = 0
    var subscribers = 50
    /// Whether the subscribers ask for gzipped event streams, as browsers' EventSource does.
    var gzipEvents = true
    var tokens: [String] = []
    var seed: UInt64 = 1
    var plan = Plan()

    static let usage = """
        usage: tandem-load --port N[,N...] --document ID --start-revision R --start-length L
                           --tokens-file PATH [--subscribers N] [--seed S]
                           [--events-encoding gzip|identity]
               tandem-load --plan PATH [--seed S] [--events-encoding gzip|identity]
        Connects the subscribers, prints `ready`, reads the timetable as one line on stdin
        (`edit A B ping A B noop A B subscribers-until T`, CLOCK_MONOTONIC seconds), runs it
        against 127.0.0.1 and prints one JSON object of figures.
        With several ports (nodes), session i and subscriber i go to port i mod their number.
        A plan file says instead which node and documents each session and subscriber has:
        lines `document ID START-REVISION START-LENGTH` (numbered 0, 1, ... in order),
        `session PORT TOKEN DOC[,DOC...]` (edits those documents in turn) and
        `subscriber PORT DOC`.
        """

    static func parse(_ argv: [String]) -> Arguments {
        var a = Arguments()
        var tokensFile: String?
        var planFile: String?
        var i = 1
        func value() -> String {
            i += 1
            guard i < argv.count else { fail("\(argv[i - 1]) needs a value\n\(usage)") }
            return argv[i]
        }
        while i < argv.count {
            switch argv[i] {
            case "--port":
                let ports = value().split(separator: ",").map { UInt16($0) ?? 0 }
                guard !ports.isEmpty, !ports.contains(0) else { fail(usage) }
                a.ports += ports
            case "--document": a.document = value()
            case "--start-revision": a.startRevision = Int(value()) ?? -1
            case "--start-length": a.startLength = Int(value()) ?? -1
            case "--subscribers": a.subscribers = Int(value()) ?? -1
            case "--tokens-file": tokensFile = value()
            case "--plan": planFile = value()
            case "--seed": a.seed = UInt64(value()) ?? 1
            case "--events-encoding":
                switch value() {
                case "gzip": a.gzipEvents = true
                case "identity": a.gzipEvents = false
                default: fail(usage)
                }
            case "-h", "--help": print(usage); exit(0)
            default: fail("unknown argument \(argv[i])\n\(usage)")
            }
            i += 1
        }
        if let planFile {
            guard let text = readWholeFile(planFile) else { fail("cannot read \(planFile)") }
            switch Plan.parse(text) {
            case .success(let plan): a.plan = plan
            case .failure(let error): fail(error.message)
            }
        } else {
            if let tokensFile {
                guard let text = readWholeFile(tokensFile) else { fail("cannot read \(tokensFile)") }
                a.tokens = text.split(separator: "\n").map { String($0) }.filter { !$0.isEmpty }
            }
            guard !a.ports.isEmpty, !a.document.isEmpty, a.startRevision >= 0, a.startLength >= 0,
                  a.subscribers >= 0, !a.tokens.isEmpty else { fail(usage) }
            let ports = a.ports
            a.plan.documents = [Plan.Document(id: a.document, startRevision: a.startRevision, startLength: a.startLength)]
            a.plan.sessions = a.tokens.enumerated().map { Plan.Session(port: ports[$0.offset % ports.count], token: $0.element, documents: [0]) }
            a.plan.subscribers = (0..<a.subscribers).map { Plan.Subscriber(port: ports[$0 % ports.count], document: 0) }
        }
        // Document ids and tokens go into a request line and a header verbatim.
        let bad = (a.plan.sessions.map(\.token) + a.plan.documents.map(\.id)).contains { $0.isEmpty || $0.utf8.contains { $0 <= 0x20 || $0 >= 0x7F } }
        guard !bad else { fail("tokens and document ids must be printable ASCII without spaces") }
        return a
    }
}

func fail(_ message: String) -> Never {
    let text = "tandem-load: \(message)\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(1)
}

func readWholeFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n >= 0 else { return nil }
        if n == 0 { break }
        bytes.append(contentsOf: chunk[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
}
