import Testing
import TandemCore
import TandemStore
@testable import TandemServer

/// Archived runs hold each change exactly as `GET …/edits` writes it, and a page read from
/// them is cut, continued and refused as a page of the log in memory is.
@Suite struct ChangeArchiveTests {
    /// A document with `count` changes, each inserting `size` characters at the start.
    static func changes(_ count: Int, size: Int = 10) throws -> [Change] {
        let doc = Document(text: "")
        for i in 0..<count {
            let text = String(repeating: Character(Unicode.Scalar(UInt8(97 + i % 26))), count: size)
            try doc.apply(.insert(text, at: 0, length: doc.length), session: "s\(i % 3)", time: Double(i))
        }
        return try doc.changes(since: 0)
    }

    static func json(_ changes: ArraySlice<Change>) -> [UInt8] {
        var w = JSONWriter(capacity: 256)
        w.beginArray()
        for c in changes { DocumentJSON.change(c, to: &w) }
        w.endArray()
        return w.bytes
    }

    @Test func aPageFromTheArchiveIsTheLogsJSON() throws {
        let changes = try Self.changes(40)
        let runs = ChangeArchive.runs(of: changes, document: "d")
        #expect(runs.count == 1 && runs[0].first == 1 && runs[0].last == 40)
        let page = try #require(try ChangeArchive.page(runs, since: 0, maxBytes: 1 << 20))
        #expect(page.bytes == Self.json(changes[...]) && page.last == 40)
        let later = try #require(try ChangeArchive.page(runs, since: 25, maxBytes: 1 << 20))
        #expect(later.bytes == Self.json(changes[25...]) && later.last == 40)
        #expect(try ChangeArchive.page(runs, since: 40, maxBytes: 1 << 20) == nil)
    }

    @Test func largeChangesMakeRunsOfTheirOwnAndPagesAreCutAtMaxBytes() throws {
        let changes = try Self.changes(6, size: 100_000)
        let runs = ChangeArchive.runs(of: changes, document: "d")
        // Runs close once they hold 256 KiB: three changes of 100 KB each.
        #expect(runs.map { [$0.first, $0.last] } == [[1, 3], [4, 6]])
        // At least one change, then changes while the page is under maxBytes.
        let one = try #require(try ChangeArchive.page(runs, since: 0, maxBytes: 1024))
        #expect(one.last == 1 && one.bytes == Self.json(changes[0..<1]))
        let four = try #require(try ChangeArchive.page(runs, since: 1, maxBytes: 350_000))
        #expect(four.last == 4 && four.bytes == Self.json(changes[1..<4]))
    }

    @Test func aGapBetweenRunsEndsThePage() throws {
        let changes = try Self.changes(30)
        let runs = ChangeArchive.runs(of: Array(changes[0..<10]), document: "d")
            + ChangeArchive.runs(of: Array(changes[20..<30]), document: "d")
        let page = try #require(try ChangeArchive.page(runs, since: 3, maxBytes: 1 << 20))
        #expect(page.last == 10 && page.bytes == Self.json(changes[3..<10]))
    }

    @Test func overlappingRunsAreReadWithoutRepeats() throws {
        let changes = try Self.changes(30)
        let runs = ChangeArchive.runs(of: Array(changes[0..<20]), document: "d")
            + ChangeArchive.runs(of: Array(changes[10..<30]), document: "d")
        let page = try #require(try ChangeArchive.page(runs, since: 0, maxBytes: 1 << 20))
        #expect(page.last == 30 && page.bytes == Self.json(changes[...]))
    }

    @Test func aDamagedRunIsAnErrorNotAPage() throws {
        var run = try #require(ChangeArchive.runs(of: try Self.changes(5), document: "d").first)
        run.payload = Array(run.payload.prefix(run.payload.count / 2))
        #expect(throws: ChangeArchive.Damaged.self) { try ChangeArchive.page([run], since: 0, maxBytes: 1 << 20) }
    }
}
