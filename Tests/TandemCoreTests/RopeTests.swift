import Testing
@testable import TandemCore

@Suite("Rope")
struct RopeTests {
    @Test func emptyRope() {
        let rope = Rope()
        #expect(rope.isEmpty)
        #expect(rope.utf16Count == 0)
        #expect(rope.description == "")
        #expect(rope.substring(0..<0) == "")
        #expect(rope.isCharacterBoundary(0))
        #expect(!rope.isCharacterBoundary(1))
        #expect(rope == Rope(""))
    }

    @Test func initAndDescription() {
        let rope = Rope("hello, world")
        #expect(!rope.isEmpty)
        #expect(rope.utf16Count == 12)
        #expect(rope.description == "hello, world")
        #expect(rope.substring(7..<12) == "world")
        #expect(rope.utf16Unit(at: 0) == UInt16(UInt8(ascii: "h")))
    }

    @Test func insertAtStartMiddleEnd() {
        var rope = Rope("bd")
        rope.insert("a", at: 0)
        rope.insert("c", at: 2)
        rope.insert("e", at: 4)
        #expect(rope.description == "abcde")
        rope.insert("", at: 3)
        #expect(rope.description == "abcde")
    }

    @Test func removeRanges() {
        var rope = Rope("abcdef")
        rope.remove(1..<3)
        #expect(rope.description == "adef")
        rope.remove(2..<2)
        #expect(rope.description == "adef")
        rope.remove(0..<4)
        #expect(rope.isEmpty)
    }

    @Test func replaceRanges() {
        var rope = Rope("hello world")
        rope.replace(6..<11, with: "there")
        #expect(rope.description == "hello there")
        rope.replace(0..<5, with: "")
        #expect(rope.description == " there")
        rope.replace(0..<0, with: "oh")
        #expect(rope.description == "oh there")
    }

    /// Emoji take two UTF-16 code units (a surrogate pair); CJK and accented letters one.
    @Test func nonASCIICountsUTF16() {
        let text = "a😀中é👍🏽"
        let rope = Rope(text)
        #expect(rope.utf16Count == text.utf16.count)
        #expect(rope.utf16Count == 1 + 2 + 1 + 1 + 4)
        #expect(rope.substring(1..<3) == "😀")
        #expect(rope.substring(3..<4) == "中")
        #expect(rope.substring(5..<9) == "👍🏽")
        #expect(rope.utf16Unit(at: 1) == 0xD83D)
        #expect(rope.utf16Unit(at: 2) == 0xDE00)
        #expect(rope.description == text)
    }

    @Test func characterBoundaries() {
        let rope = Rope("a😀b")
        #expect(rope.isCharacterBoundary(0))
        #expect(rope.isCharacterBoundary(1))
        #expect(!rope.isCharacterBoundary(2))
        #expect(rope.isCharacterBoundary(3))
        #expect(rope.isCharacterBoundary(4))
        #expect(!rope.isCharacterBoundary(5))
        #expect(!rope.isCharacterBoundary(-1))
        // Scalar boundaries, not graphemes: between "e" and a combining accent is allowed.
        #expect(Rope("e\u{301}").isCharacterBoundary(1))
    }

    @Test func cutSurrogatePairDecodesAsReplacement() {
        let rope = Rope("😀")
        #expect(rope.substring(0..<1) == "\u{FFFD}")
        #expect(rope.utf16Units(0..<2) == [0xD83D, 0xDE00])
    }

    /// 2047 + 2 + 2047 units are cut into two chunks of 2048, so the pair straddles them.
    @Test func surrogatePairAcrossChunks() throws {
        let text = String(repeating: "a", count: 2_047) + "😀" + String(repeating: "b", count: 2_047)
        var rope = Rope(text)
        #expect(rope.height == 1)
        #expect(rope.isCharacterBoundary(2_047))
        #expect(!rope.isCharacterBoundary(2_048))
        #expect(rope.isCharacterBoundary(2_049))
        #expect(rope.substring(2_040..<2_052) == "aaaaaaa😀bbb")
        let cut = try TextOperation.insert("x", at: 2_048, length: rope.utf16Count)
        #expect(throws: OperationError.splitsSurrogatePair(at: 2_048)) { try cut.apply(to: &rope) }
        #expect(rope.description == text)
    }

    @Test func surrogatePairRejoinedAcrossEdits() {
        // Insert the two halves' neighbours around a pair and take them out again.
        var rope = Rope("😀")
        rope.insert("x", at: 2)
        rope.insert("y", at: 0)
        #expect(rope.description == "y😀x")
        rope.remove(0..<1)
        rope.remove(2..<3)
        #expect(rope.description == "😀")
    }

    @Test func largeTextSpansManyChunks() {
        let line = "The quick brown fox 🦊 jumps over the lazy dog. 中文字符.\n"
        let text = String(repeating: line, count: 2_000)
        var rope = Rope(text)
        #expect(rope.utf16Count == text.utf16.count)
        #expect(rope.height >= 1)
        #expect(rope.isBalanced)
        #expect(rope.description == text)
        let lineLength = line.utf16.count
        #expect(rope.substring(lineLength * 1000..<lineLength * 1001) == line)
        rope.remove(lineLength..<rope.utf16Count - lineLength)
        #expect(rope.description == line + line)
        #expect(rope.isBalanced)
    }

    @Test func largeInsertIntoSmallRope() {
        var rope = Rope("[]")
        let big = String(repeating: "0123456789", count: 10_000)
        rope.insert(big, at: 1)
        #expect(rope.isBalanced)
        #expect(rope.description == "[" + big + "]")
        rope.replace(1..<rope.utf16Count - 1, with: "x")
        #expect(rope.description == "[x]")
        #expect(rope.isBalanced)
    }

    @Test func valueSemantics() {
        let original = Rope(String(repeating: "abc", count: 5_000))
        var copy = original
        copy.insert("X", at: 7_000)
        copy.remove(0..<10)
        #expect(original.utf16Count == 15_000)
        #expect(original.description == String(repeating: "abc", count: 5_000))
        #expect(copy.utf16Count == 14_991)
        #expect(copy != original)
    }

    @Test func equalityComparesUnitsNotChunking() {
        // Same text, built two ways, so the chunks differ.
        let text = String(repeating: "ab😀", count: 3_000)
        var built = Rope()
        for _ in 0..<3 { built.insert(String(repeating: "ab😀", count: 1_000), at: built.utf16Count) }
        #expect(built == Rope(text))
        var different = built
        different.replace(500..<501, with: "Z")
        #expect(different != Rope(text))
        // Precomposed and decomposed "é" are different code units.
        #expect(Rope("\u{E9}") != Rope("e\u{301}"))
    }

    @Test func stringLiteral() {
        let rope: Rope = "literal"
        #expect(rope.description == "literal")
    }
}
