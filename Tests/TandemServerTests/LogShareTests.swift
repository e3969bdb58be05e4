import Testing
@testable import TandemServer

/// `DocumentPersistence.logShare`: the budget each document's change log gets while all of
/// them together are over the server-wide one.
@Suite struct LogShareTests {
    static let mib = 1 << 20

    @Test func logsThatFitTogetherKeepThePerDocumentBudget() {
        #expect(DocumentPersistence.logShare(sizes: [10 * Self.mib, 20 * Self.mib], total: 64 * Self.mib, each: 128 * Self.mib) == 128 * Self.mib)
        #expect(DocumentPersistence.logShare(sizes: [], total: Self.mib, each: 128 * Self.mib) == 128 * Self.mib)
    }

    @Test func theLargestLogsAreCutFirstAndSmallOnesAreLeftAlone() {
        // 100 MiB total: the 4 and 6 MiB logs stay whole, the two large ones share the 90 left.
        let share = DocumentPersistence.logShare(sizes: [4, 300, 6, 200].map { $0 * Self.mib }, total: 100 * Self.mib, each: 128 * Self.mib)
        #expect(share == 45 * Self.mib)
        let kept = [4, 300, 6, 200].map { min($0 * Self.mib, share) }.reduce(0, +)
        #expect(kept == 100 * Self.mib)
    }

    @Test func equalLogsShareEqually() {
        #expect(DocumentPersistence.logShare(sizes: Array(repeating: 50 * Self.mib, count: 4), total: 100 * Self.mib, each: 128 * Self.mib)
                == 25 * Self.mib)
    }

    @Test func theShareIsNeverAboveThePerDocumentBudgetNorUnderOneMebibyte() {
        #expect(DocumentPersistence.logShare(sizes: [500 * Self.mib, 10 * Self.mib], total: 400 * Self.mib, each: 128 * Self.mib) == 128 * Self.mib)
        #expect(DocumentPersistence.logShare(sizes: Array(repeating: 8 * Self.mib, count: 1000), total: 100 * Self.mib, each: 128 * Self.mib)
                == Self.mib)
    }
}
