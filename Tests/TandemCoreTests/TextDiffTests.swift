import Testing
import TandemCore

@Suite struct TextDiffTests {
    static let cases: [(String, String)] = [
        ("", ""), ("", "abc"), ("abc", ""), ("abc", "abc"), ("abc", "abd"), ("hello world", "hello brave world"),
        ("aaaa", "aa"), ("a😀b", "a😁b"), ("😀", "😁"), ("x😀", "x"), ("😀😀", "😀"), ("ab", "b😀"),
    ]

    @Test(arguments: cases)
    func replacementTurnsOldIntoNew(_ old: String, _ new: String) throws {
        let op = try TextDiff.replacement(from: old, to: new)
        #expect(try op.apply(to: old) == new)
        #expect(op.baseLength == old.utf16.count)
        if old == new { #expect(op.isIdentity) }
    }

    @Test func replacementIsMinimal() throws {
        let op = try TextDiff.replacement(from: "hello world", to: "hello brave world")
        #expect(op.components == [.retain(6), .insert("brave "), .retain(5)])
    }
}
