import Testing
@testable import TandemServer

@Test func moduleLoads() {
    #expect(true)
}
