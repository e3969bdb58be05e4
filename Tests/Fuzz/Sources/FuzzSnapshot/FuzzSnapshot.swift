import Foundation
import FuzzSupport
import TandemCore
import TandemHTTP
@testable import TandemServer

/// A stored snapshot → `DocumentSnapshot` (`SnapshotCodec`: the binary form, or the gzipped or
/// plain JSON older servers wrote). The decoder must never trap; what it accepts writes as a
/// binary snapshot that reads back and writes the same bytes again (a snapshot of the current
/// binary version is those very bytes); and loading it into a document, as start-up does,
/// either works or throws.
func fuzzSnapshot(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    guard let snapshot = try? SnapshotCodec.decode(input) else { return 0 }
    let binary = snapshot.binary()
    let again = try? DocumentSnapshot(binary: binary)
    require(again?.binary() == binary, "the binary form does not read back: \(escaped(binary))", input: input)
    if DocumentSnapshot.isCurrentBinary(input) {
        require(binary == input, "a binary snapshot read and written again is other bytes: \(escaped(binary))", input: input)
    }
    _ = try? Document(snapshot: snapshot)
    return 0
}

func seeds() -> [(String, [UInt8])] {
    let count = SampleHistory.events().count
    var seeds: [(String, [UInt8])] = [("empty-binary", Document(text: "").snapshot().binary())]
    for n in [3, count / 2, count] {
        let snapshot = SampleHistory.document(upTo: n).snapshot()
        seeds.append(("after-\(n)-binary", SnapshotCodec.encode(snapshot)))
        if n == count, let json = try? JSONEncoder().encode(snapshot) {
            seeds.append(("after-\(n)-json", Array(json)))
            seeds.append(("after-\(n)-json-gzip", Gzip.compress(Array(json)) ?? []))
        }
    }
    return seeds
}
