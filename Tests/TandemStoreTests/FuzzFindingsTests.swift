import Testing
@testable import TandemStore

/// Inputs `scripts/fuzz.sh` found that trapped a decoder, minimized: each must now be refused
/// as damage.
@Suite struct FuzzFindingsTests {
    /// A run row read from `first...last` with its payload (change-run target).
    @Test(arguments: [
        // One empty change at 254 in a run said to end at Int.max: checking that the run ended
        // at `last` computed `last + 1` and overflowed.
        ([0x00], 254, Int.max),
        ([0x00], Int.max, Int.max),
        ([0x00, 0x00], Int.max - 1, Int.max),
    ] as [([UInt8], Int, Int)])
    func changeRunsEndingAtIntMaxAreCorrupt(bytes: [UInt8], first: Int, last: Int) {
        var out: [StoredChange] = []
        #expect(throws: StoreError.corrupt("the stored changes \(first)...\(last) of d are damaged")) {
            try ChangeRun.decode(bytes, document: "d", first: first, last: last, wanted: 1...Int.max, into: &out)
        }
    }
}
