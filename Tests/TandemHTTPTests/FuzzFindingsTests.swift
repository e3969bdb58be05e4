import Testing
import TandemHTTP

/// Byte streams `scripts/fuzz.sh` found parsing differently depending on how they arrived,
/// minimized: whole and cut at every point, they must yield the same requests or error.
@Suite struct FuzzFindingsTests {
    /// A method of 100 token characters (the test limits allow targets of 64 bytes): whole, the
    /// request is read; cut anywhere after byte 96, before its line ends, the parser refused the
    /// line as a too-long target (414) although the target is `/` (http target).
    @Test(arguments: [
        String(repeating: "G", count: 100) + " / HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\n\r\n" + String(repeating: "P", count: 100) + " /x HTTP/1.1\r\nHost: a\r\n\r\n",
    ])
    func aLongMethodParsesAlikeHoweverCut(raw: String) {
        let bytes = Array(raw.utf8)
        let whole = ParserHarness.parse(bytes)
        #expect(whole.error == nil)
        let differing = (0...bytes.count).filter { ParserHarness.parse([bytes[..<$0], bytes[$0...]]) != whole }
        #expect(differing.isEmpty, "cut at \(differing)")
    }
}
