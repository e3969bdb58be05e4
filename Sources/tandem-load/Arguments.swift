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

struct Arguments {
    var port: UInt16 = 0
    var document = ""
    var startRevision = 0
    var startLength = 0
    var subscribers = 50
    /// Whether the subscribers ask for gzipped event streams, as browsers' EventSource does.
    var gzipEvents = true
    var tokens: [String] = []
    var seed: UInt64 = 1

    static let usage = """
        usage: tandem-load --port N --document ID --start-revision R --start-length L
                           --tokens-file PATH [--subscribers N] [--seed S]
                           [--events-encoding gzip|identity]
        Connects the subscribers, prints `ready`, reads the timetable as one line on stdin
        (`edit A B ping A B noop A B subscribers-until T`, CLOCK_MONOTONIC seconds), runs it
        against 127.0.0.1 and prints one JSON object of figures.
        """

    static func parse(_ argv: [String]) -> Arguments {
        var a = Arguments()
        var tokensFile: String?
        var i = 1
        func value() -> String {
            i += 1
            guard i < argv.count else { fail("\(argv[i - 1]) needs a value\n\(usage)") }
            return argv[i]
        }
        while i < argv.count {
            switch argv[i] {
            case "--port": a.port = UInt16(value()) ?? 0
            case "--document": a.document = value()
            case "--start-revision": a.startRevision = Int(value()) ?? -1
            case "--start-length": a.startLength = Int(value()) ?? -1
            case "--subscribers": a.subscribers = Int(value()) ?? -1
            case "--tokens-file": tokensFile = value()
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
        if let tokensFile {
            guard let text = readWholeFile(tokensFile) else { fail("cannot read \(tokensFile)") }
            a.tokens = text.split(separator: "\n").map { String($0) }.filter { !$0.isEmpty }
        }
        guard a.port != 0, !a.document.isEmpty, a.startRevision >= 0, a.startLength >= 0,
              a.subscribers >= 0, !a.tokens.isEmpty else { fail(usage) }
        // Document ids and tokens go into a request line and a header verbatim.
        let bad = (a.tokens + [a.document]).contains { $0.utf8.contains { $0 <= 0x20 || $0 >= 0x7F } }
        guard !bad else { fail("tokens and the document id must be printable ASCII without spaces") }
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
