/// One editing session: one keep-alive connection to one node, one request at a time, on one
/// or several documents in turn.
final class EditSession {
    let index: Int
    let port: UInt16
    var fd: Int32 = -1
    var rng: UInt64
    /// The documents this session edits (indices into the plan's), one request each in turn.
    let documents: [Int]
    /// The session's view of each of its documents: the revision of its last answer there,
    /// and the document's length at that revision.
    var revisions: [Int]
    var lengths: [Int]
    /// The slot in `documents` of the next request.
    var next = 0
    /// Index in the timetable of the phase this session is in.
    var phase = 0
    /// The phase of the request awaiting its answer, -1 when none, and its document slot.
    var inFlight = -1
    var inFlightSlot = 0
    var sentAt: UInt64 = 0
    let output = ByteBuffer(capacity: 512)
    let input = ByteBuffer(capacity: 4096)
    /// Request prefixes, request line and headers up to Content-Length: `POST /ping`, and
    /// `POST /documents/{id}/edits` for each document slot.
    let pingPrefix: [UInt8]
    let editPrefixes: [[UInt8]]
    var body: [UInt8] = []
    var watchingWrites = false
    var reconnects = 0
    var alive = true

    init(index: Int, plan: Plan.Session, documents all: [Plan.Document], seed: UInt64) {
        self.index = index
        port = plan.port
        documents = plan.documents
        revisions = plan.documents.map { all[$0].startRevision }
        lengths = plan.documents.map { all[$0].startLength }
        rng = seed &* 1000 &+ UInt64(index)
        let auth = "Host: 127.0.0.1\r\nAuthorization: Bearer \(plan.token)\r\nContent-Type: application/json\r\n"
        pingPrefix = Array("POST /ping HTTP/1.1\r\n\(auth)".utf8)
        editPrefixes = plan.documents.map { Array("POST /documents/\(all[$0].id)/edits HTTP/1.1\r\n\(auth)".utf8) }
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
