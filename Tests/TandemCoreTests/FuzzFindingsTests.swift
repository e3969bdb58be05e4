import Testing
@testable import TandemCore

/// Inputs `scripts/fuzz.sh` found that a snapshot decoder took wrongly, minimized.
@Suite struct FuzzFindingsTests {
    /// A binary snapshot of `Document(text: "ab")` with the text's two bytes replaced: the
    /// decoder read invalid UTF-8 leniently, so a damaged text loaded with U+FFFD in it (and
    /// another UTF-16 length than the log's) instead of being refused (snapshot target).
    @Test(arguments: [[0xC3, 0x28], [0xFF, 0x61], [0xED, 0xA0], [0x61, 0x80]] as [[UInt8]])
    func binarySnapshotsWithInvalidUTF8AreDamaged(text: [UInt8]) throws {
        var bytes = Document(text: "ab").snapshot().binary()
        // Magic (4), revision and change count (8 each), editing disabled (1), text length (8).
        let at = 4 + 8 + 8 + 1 + 8
        #expect(Array(bytes[at..<at + 2]) == Array("ab".utf8))
        bytes.replaceSubrange(at..<at + 2, with: text)
        #expect(throws: SnapshotFormatError.self) { try DocumentSnapshot(binary: bytes) }
    }

    /// The same bytes with valid UTF-8 in that place still read, to the new text.
    @Test func aValidReplacementStillReads() throws {
        var bytes = Document(text: "ab").snapshot().binary()
        bytes.replaceSubrange(29..<31, with: Array("é".utf8))
        #expect(try DocumentSnapshot(binary: bytes).text == "é")
    }
}
