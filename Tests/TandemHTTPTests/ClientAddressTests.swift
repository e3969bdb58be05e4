import Testing
@testable import TandemHTTP

@Suite("Client addresses, ranges and log redaction")
struct ClientAddressTests {
    @Test func anIPv4PeerIsTheSameClientWhetherItArrivesPlainOrIPv4Mapped() {
        #expect(IPAddress(peer: "127.0.0.1:4321") == IPAddress(peer: "[::ffff:127.0.0.1]:4321"))
        #expect(IPAddress(peer: "127.0.0.1:4321")?.description == "127.0.0.1")
        #expect(IPAddress(peer: "[::1]:80")?.description == "::1")
        #expect(IPAddress(peer: "not an address:1") == nil)
    }

    @Test func anIPv6ClientIsCountedByItsSlash64AndAnIPv4ClientByItself() {
        let a = IPAddress("2001:db8:1:2::7")!, b = IPAddress("2001:db8:1:2:ffff::1")!, c = IPAddress("2001:db8:1:3::7")!
        #expect(a.limitKey == b.limitKey)
        #expect(a.limitKey != c.limitKey)
        #expect(IPAddress("10.0.0.1")!.limitKey != IPAddress("10.0.0.2")!.limitKey)
    }

    @Test func aRangeHoldsExactlyTheAddressesOfItsPrefix() {
        let v4 = CIDR("10.1.0.0/16")!
        #expect(v4.contains(IPAddress("10.1.255.3")!))
        #expect(!v4.contains(IPAddress("10.2.0.1")!))
        #expect(CIDR("127.0.0.1")!.contains(IPAddress("::ffff:127.0.0.1")!))
        #expect(!CIDR("127.0.0.1")!.contains(IPAddress("127.0.0.2")!))
        let v6 = CIDR("fd00::/8")!
        #expect(v6.contains(IPAddress("fd12::1")!))
        #expect(!v6.contains(IPAddress("fe80::1")!))
        #expect(CIDR("0.0.0.0/0")!.contains(IPAddress("192.0.2.1")!))
        #expect(!CIDR("0.0.0.0/0")!.contains(IPAddress("2001:db8::1")!))
    }

    @Test(arguments: ["10.0.0.0/33", "::/129", "10.0.0.0/-1", "10.0.0.0/", "abc/8", "10.0.0.0/8/8", ""])
    func aMalformedRangeIsRefused(_ text: String) {
        #expect(CIDR(text) == nil)
    }

    @Test func credentialsInTheQueryAreRedactedAndEverythingElseIsKept() {
        #expect(LogRedaction.target("/documents/d?link=l_abc.secret") == "/documents/d?link=REDACTED")
        #expect(LogRedaction.target("/documents/d/events?x=1&LINK=t&token=u&y=2") == "/documents/d/events?x=1&LINK=REDACTED&token=REDACTED&y=2")
        #expect(LogRedaction.target("/documents/d?since=3") == "/documents/d?since=3")
        #expect(LogRedaction.target("/documents/d") == "/documents/d")
        #expect(LogRedaction.target("/p?link") == "/p?link")
    }
}
