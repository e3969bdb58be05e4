import FuzzSupport
import TandemCore
@testable import TandemServer
@testable import TandemStore

/// A `change_runs` row → stored changes. The input is the row: `first` and `last` as LEB128
/// varints (any 64-bit pattern, so damaged columns too), then the payload. The decoder must
/// never trap; what it accepts is exactly `last - first + 1` changes numbered `first...last`,
/// re-encodes to a payload that decodes to the same changes, and any `wanted` range gets just
/// the changes inside it.
func fuzzChangeRun(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    var at = 0
    guard let f = try? LEB128.read(input, at: &at), let l = try? LEB128.read(input, at: &at) else { return 0 }
    let first = Int(Int64(bitPattern: f)), last = Int(Int64(bitPattern: l))
    let payload = Array(input[at...])

    var all: [StoredChange] = []
    guard (try? ChangeRun.decode(payload, document: "d", first: first, last: last, wanted: Int.min...Int.max, into: &all)) != nil else {
        return 0
    }
    require(all.count == last - first + 1 && all.map(\.revision) == Array(first...last),
            "\(first)...\(last) decoded as revisions \(all.map(\.revision))", input: input)

    let encoded = ChangeRun.encode(all)
    var again: [StoredChange] = []
    let reread: Void? = try? ChangeRun.decode(encoded, document: "d", first: first, last: last, wanted: first...last, into: &again)
    require(reread != nil && again.map(\.payload) == all.map(\.payload), "the re-encoded run reads differently", input: input)

    // The middle third, as a read for a revision range takes it.
    let span = last - first
    let wanted = (first + span / 3)...(last - span / 3)
    var some: [StoredChange] = []
    let partial: Void? = try? ChangeRun.decode(payload, document: "d", first: first, last: last, wanted: wanted, into: &some)
    require(partial != nil && some.map(\.payload) == all.filter { wanted.contains($0.revision) }.map(\.payload),
            "the changes wanted in \(wanted) differ from those decoded whole", input: input)
    return 0
}

func seeds() -> [(String, [UInt8])] {
    // Runs of stored changes, each payload one journal event as the server stores it.
    let payloads = SampleHistory.events().map { ChangeCodec.encode([$0]) }
    func row(_ first: Int, _ payloads: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = []
        LEB128.append(UInt64(first), to: &bytes)
        LEB128.append(UInt64(first + payloads.count - 1), to: &bytes)
        let changes = payloads.enumerated().map { StoredChange(documentID: "d", revision: first + $0.offset, payload: $0.element) }
        return bytes + ChangeRun.encode(changes)
    }
    return [
        ("one", row(1, [payloads[0]])),
        ("three", row(41, Array(payloads.prefix(3)))),
        ("all", row(7, payloads)),
        ("empty-payloads", row(1, [[], [], []])),
        ("long-payload", row(2, [[UInt8](repeating: 0x61, count: 300)])),
    ]
}
