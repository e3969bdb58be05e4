import Testing
@testable import TandemHTTP

@Test func moduleLoads() {
    #expect(true)
}
