import Testing
@testable import TandemHTTP
import TandemTestSupport

@Suite struct GzipTests {
    @Test(arguments: [0, 1, 100, 4096, 70_000, 1_000_000])
    func randomBytesRoundTrip(count: Int) throws {
        var rng = SplitMix64(seed: UInt64(count))
        let input = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let compressed = try #require(Gzip.compress(input))
        #expect(compressed.starts(with: [0x1F, 0x8B]))
        #expect(Gzip.decompress(compressed, limit: count) == input)
    }

    @Test func textShrinksAndRoundTrips() throws {
        let text = Array(String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 500).utf8)
        for level: Int32 in [1, 6, 9] {
            let compressed = try #require(Gzip.compress(text, level: level))
            #expect(compressed.count < text.count / 10)
            #expect(Gzip.decompress(compressed, limit: text.count) == text)
        }
    }

    @Test func emptyInputRoundTrips() throws {
        let compressed = try #require(Gzip.compress([]))
        #expect(compressed.count >= 18)  // header + trailer, no payload
        #expect(Gzip.decompress(compressed, limit: 0) == [])
    }

    @Test func compressionIsDeterministic() {
        let text = Array("deterministic bodies keep ETags honest".utf8)
        #expect(Gzip.compress(text) == Gzip.compress(text))
    }

    @Test func decompressLimitIsHonoured() throws {
        let zeros = [UInt8](repeating: 0, count: 1_000_000)
        let bomb = try #require(Gzip.compress(zeros, level: 9))
        #expect(bomb.count < 2_000)
        #expect(Gzip.decompress(bomb, limit: 999_999) == nil)
        #expect(Gzip.decompress(bomb, limit: 10_000) == nil)
        #expect(Gzip.decompress(bomb, limit: 1_000_000)?.count == 1_000_000)
    }

    @Test func invalidOrTruncatedInputIsRejected() throws {
        let compressed = try #require(Gzip.compress(Array("hello, hello, hello".utf8)))
        #expect(Gzip.decompress(Array(compressed.dropLast(4)), limit: 1000) == nil)
        #expect(Gzip.decompress(Array("not gzip at all".utf8), limit: 1000) == nil)
        #expect(Gzip.decompress([], limit: 1000) == nil)
        var corrupted = compressed
        corrupted[corrupted.count - 6] ^= 0xFF  // CRC32 no longer matches
        #expect(Gzip.decompress(corrupted, limit: 1000) == nil)
    }

    @Test func concatenatedMembersDecompressToTheJoinedData() throws {
        let a = try #require(Gzip.compress(Array("first ".utf8)))
        let b = try #require(Gzip.compress(Array("second".utf8)))
        #expect(Gzip.decompress(a + b, limit: 100) == Array("first second".utf8))
        #expect(Gzip.decompress(a + b, limit: 8) == nil)
    }
}
