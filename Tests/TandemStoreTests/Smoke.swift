import Testing
@testable import TandemStore

@Test func moduleLoads() {
    #expect(true)
}
