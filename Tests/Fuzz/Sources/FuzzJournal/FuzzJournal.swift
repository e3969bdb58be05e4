import FuzzSupport
import TandemCore
@testable import TandemServer

/// A stored change's payload → journal events (`ChangeCodec`: the binary form, or the JSON one
/// older servers wrote). The decoders must never trap; what they accept re-encodes to bytes
/// that decode to the same events (binary: bit for bit; JSON: equal, where every time is
/// finite, since JSON has no NaN); and replaying the events on a document, as start-up does,
/// either works or throws.
func fuzzJournal(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    guard let events = try? ChangeCodec.decode(input) else { return 0 }

    let binary = JournalBinary.encode(events)
    let again = try? JournalBinary.decode(binary)
    require(again.map(JournalBinary.encode) == binary, "the binary form does not read back: \(escaped(binary))", input: input)

    if events.allSatisfy(\.hasFiniteTime) {
        let json = JournalCodec.encode(events)
        let reread = try? JournalCodec.decode(json)
        require(reread == events, "the JSON form does not read back: \(escaped(json))", input: input)
    }

    let document = Document(text: "Hello, wörld 😀")
    for event in events {
        do { try document.replay(event) } catch { break }
    }
    return 0
}

func seeds() -> [(String, [UInt8])] {
    let events = SampleHistory.events()
    var seeds: [(String, [UInt8])] = [("all-binary", ChangeCodec.encode(events)), ("all-json", JournalCodec.encode(events))]
    // One stored change's worth each, as the store keeps them.
    for (i, e) in events.enumerated() where i % 3 == 0 {
        seeds.append(("event-\(i)-binary", ChangeCodec.encode([e])))
        seeds.append(("event-\(i)-json", JournalCodec.encode([e])))
    }
    return seeds
}

extension DocumentEvent {
    var hasFiniteTime: Bool {
        switch self {
        case .edit(_, _, _, let t), .undo(_, let t, _), .redo(_, let t): t.isFinite
        case .revert(let request): request.time.isFinite
        default: true
        }
    }
}
