/// One editing session: one keep-alive connection, one request at a time.
final class EditSession {
    let index: Int
    var fd: Int32 = -1
    var rng: UInt64
    /// The session's view: the revision of its last answer, and the document length there.
    var revision: Int
    var length: Int
    /// Index in the timetable of the phase this session is in.
    var phase = 0
    /// The phase of the request awaiting its answer, -1 when none.
    var inFlight = -1
    var sentAt: UInt64 = 0
    let output = ByteBuffer(capacity: 512)
    let input = ByteBuffer(capacity: 4096)
    /// Request prefixes by phase kind: request line and headers up to Content-Length.
    let prefixes: [[UInt8]]
    var body: [UInt8] = []
    var watchingWrites = false
    var reconnects = 0
    var alive = true

    init(index: Int, token: String, arguments: Arguments) {
        self.index = index
        revision = arguments.startRevision
        length = arguments.startLength
        rng = arguments.seed &* 1000 &+ UInt64(index)
        let auth = "Host: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\n"
        prefixes = PhaseKind.allCases.map { kind in
            let target = kind == .ping ? "/ping" : "/documents/\(arguments.document)/edits"
            return Array("POST \(target) HTTP/1.1\r\n\(auth)".utf8)
        }
    }

    /// splitmix64: cheap, and as good as the benchmark needs.
    func random(below bound: UInt64) -> UInt64 {
        rng &+= 0x9E37_79B9_7F4A_7C15
        var z = rng
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return (z ^ (z >> 31)) % bound
    }
}
