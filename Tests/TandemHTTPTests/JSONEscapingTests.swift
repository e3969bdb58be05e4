import Foundation
import Testing
import TandemHTTP

@Suite struct JSONEscapingTests {
    static let table: [(String, String)] = [
        ("", #""""#),
        ("plain", #""plain""#),
        ("a\"b", #""a\"b""#),
        ("back\\slash", #""back\\slash""#),
        ("line\nbreak\r\ttab", #""line\nbreak\r\ttab""#),
        ("\u{0}\u{1}\u{1F}", #""\u0000\u0001\u001f""#),
        ("\u{7F}é€😀", "\"\u{7F}é€😀\""),
        ("\"", #""\"""#),
        ("\\\"\\", #""\\\"\\""#),
        ("ends with newline\n", #""ends with newline\n""#),
        ("\nstarts", #""\nstarts""#),
        (String(repeating: "x", count: 100) + "\"", "\"" + String(repeating: "x", count: 100) + "\\\"\""),
    ]

    @Test(arguments: table)
    func escapesExactly(_ input: String, _ expected: String) {
        var out: [UInt8] = [UInt8(ascii: "[")]
        JSONEscaping.appendString(input, to: &out)
        #expect(out == [UInt8(ascii: "[")] + Array(expected.utf8))
    }

    /// Every string of the characters that matter, up to length 3, decodes back to itself.
    @Test func roundTripsThroughFoundation() throws {
        let alphabet: [Character] = ["a", "\"", "\\", "\n", "\u{1}", "é", "😀", "/"]
        var strings = [""]
        var frontier = [""]
        for _ in 0..<3 {
            frontier = frontier.flatMap { s in alphabet.map { s + String($0) } }
            strings += frontier
        }
        for s in strings {
            var out: [UInt8] = []
            JSONEscaping.appendString(s, to: &out)
            let decoded = try JSONSerialization.jsonObject(with: Data(out), options: .fragmentsAllowed) as? String
            #expect(decoded == s)
        }
        #expect(strings.count == 585)
    }
}
