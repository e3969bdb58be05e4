import FuzzSupport
import TandemHTTP
import TandemTestSupport

/// Bytes → requests. The parser must never trap, and how the bytes arrive must not matter:
/// whole, one byte at a time, cut in two at every point, and in chunks of random sizes
/// (seeded by the input), it yields the same requests, the same 100-continue events, and
/// fails or not alike. One latitude: while a request is still incomplete, a piece may be
/// refused early for a size limit (414/431) that the whole bytes would hit once complete.
/// Small limits, so the fuzzer reaches every limit check.
func fuzzHTTP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    let whole = Outcome.parse([input[...]])

    check(Outcome.parse(input.indices.map { input[$0...$0] }), against: whole, "one byte at a time", input)
    // Every two-piece cut costs a parse per byte: all of them for short inputs, 64 drawn
    // from the input's hash for longer ones.
    var random = SplitMix64(seed: fnv1a(input))
    let cuts = input.count <= 256 ? Array(0...input.count) : (0..<64).map { _ in Int(random.next() % UInt64(input.count + 1)) }
    for cut in cuts {
        check(Outcome.parse([input[..<cut], input[cut...]]), against: whole, "cut at \(cut)", input)
    }
    for _ in 0..<4 {
        var pieces: [ArraySlice<UInt8>] = []
        var at = 0
        while at < input.count {
            let n = min(input.count - at, Int(random.next() % 64) + 1)
            pieces.append(input[at..<at + n])
            at += n
        }
        check(Outcome.parse(pieces), against: whole, "chunks \(pieces.map(\.count))", input)
    }
    return 0
}

func check(_ split: Outcome, against whole: Outcome, _ how: String, _ input: [UInt8]) {
    require(split.requests == whole.requests, "\(how): requests differ\n  whole: \(whole)\n  split: \(split)", input: input)
    require(split.continues == whole.continues, "\(how): 100-continue events differ\n  whole: \(whole)\n  split: \(split)", input: input)
    let earlyLimit = whole.error == nil && !whole.idle && split.error.map { [414, 431].contains($0.status.code) } == true
    require((split.error == nil) == (whole.error == nil) || earlyLimit, "\(how): failed differently\n  whole: \(whole)\n  split: \(split)", input: input)
}

/// Everything parsing yields, in a form that compares exactly.
struct Outcome: CustomStringConvertible {
    struct Request: Equatable {
        var method: String
        var target: String
        var version: String
        var headers: HTTPHeaders
        var body: [UInt8]
        var trailers: HTTPHeaders
    }
    var requests: [Request] = []
    var continues = 0
    var error: HTTPParseError?
    /// All bytes read into complete requests, none left over.
    var idle = false

    var description: String {
        "\(requests.map { "\($0.method) \($0.target) \($0.version) \($0.headers.map { "\($0.name)=\($0.value)" }) body=\($0.body.count)B trailers=\($0.trailers.count)" }) continues=\(continues) error=\(error.map(\.description) ?? "none")"
    }

    static let limits = HTTPLimits(maxTargetLength: 64, maxHeaderBytes: 512, maxBodyBytes: 256)

    static func parse(_ pieces: [ArraySlice<UInt8>]) -> Outcome {
        var parser = HTTPRequestParser(limits: limits)
        var outcome = Outcome()
        for piece in pieces {
            parser.append(piece)
            while true {
                do {
                    guard let event = try parser.next() else { break }
                    switch event {
                    case .continueExpected: outcome.continues += 1
                    case .request(let r):
                        outcome.requests.append(Request(method: r.method.rawValue, target: r.target, version: r.version.description,
                                                        headers: r.headers, body: r.body, trailers: r.trailers))
                    }
                } catch {
                    outcome.error = error
                    return outcome
                }
            }
        }
        outcome.idle = parser.isIdle
        return outcome
    }
}
