import TandemTestSupport
import Testing
@testable import TandemCore

/// `String(utf16Units:)` must make exactly the String the standard library's repairing
/// decoder makes, byte for byte, whatever the units: it replaces that decoder on every path
/// from the rope to a String.
@Suite("UTF-16 to String")
struct UTF16TranscodingTests {
    /// Code units in, the exact UTF-8 bytes out.
    static let table: [(units: [UInt16], utf8: [UInt8])] = [
        ([], []),
        ([0x41], [0x41]),
        ([0x00], [0x00]),
        ([0x7F], [0x7F]),
        ([0x80], [0xC2, 0x80]),
        ([0xE9], [0xC3, 0xA9]),
        ([0x7FF], [0xDF, 0xBF]),
        ([0x800], [0xE0, 0xA0, 0x80]),
        ([0x4E2D], [0xE4, 0xB8, 0xAD]),
        ([0xD7FF], [0xED, 0x9F, 0xBF]),
        ([0xE000], [0xEE, 0x80, 0x80]),
        ([0xFFFF], [0xEF, 0xBF, 0xBF]),
        // Pairs: U+10000, U+1F600, U+10FFFF.
        ([0xD800, 0xDC00], [0xF0, 0x90, 0x80, 0x80]),
        ([0xD83D, 0xDE00], [0xF0, 0x9F, 0x98, 0x80]),
        ([0xDBFF, 0xDFFF], [0xF4, 0x8F, 0xBF, 0xBF]),
        // Unpaired halves become U+FFFD, one each.
        ([0xD800], [0xEF, 0xBF, 0xBD]),
        ([0xDC00], [0xEF, 0xBF, 0xBD]),
        ([0xDC00, 0xD800], [0xEF, 0xBF, 0xBD, 0xEF, 0xBF, 0xBD]),
        ([0xD800, 0xD800, 0xDC00], [0xEF, 0xBF, 0xBD, 0xF0, 0x90, 0x80, 0x80]),
        ([0xD800, 0x41], [0xEF, 0xBF, 0xBD, 0x41]),
        ([0x41, 0xDFFF], [0x41, 0xEF, 0xBF, 0xBD]),
        ([0x61, 0xD83D, 0xDE00, 0x62], [0x61, 0xF0, 0x9F, 0x98, 0x80, 0x62]),
    ]

    @Test(arguments: table.indices)
    func exactBytes(_ i: Int) {
        let (units, utf8) = Self.table[i]
        let made = String(utf16Units: units)
        #expect(Array(made.utf8) == utf8)
        #expect(Array(made.utf8) == Array(String(decoding: units, as: UTF16.self).utf8))
    }

    @Test func slicesAndNonContiguousCollections() {
        let units: [UInt16] = Array("xaé😀b".utf16)
        #expect(String(utf16Units: units[1...]) == "aé😀b")
        #expect(String(utf16Units: units[1..<4]) == "aé\u{FFFD}")
        // No contiguous storage: copied first, same result.
        #expect(String(utf16Units: units.reversed()) == String(decoding: units.reversed(), as: UTF16.self))
    }

    /// Every mix of a few troublesome units, against the standard library.
    @Test func agreesWithTheStandardDecoder() {
        let alphabet: [UInt16] = [0x41, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000, 0xFFFD, 0xFFFF]
        var rng = SplitMix64(seed: 7)
        for _ in 0..<20_000 {
            let units = (0..<Int(rng.next() % 9)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            let made = String(utf16Units: units)
            #expect(Array(made.utf8) == Array(String(decoding: units, as: UTF16.self).utf8), "\(units)")
        }
    }
}
