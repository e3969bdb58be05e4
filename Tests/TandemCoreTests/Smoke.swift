import Testing
@testable import TandemCore

@Test func moduleLoads() {
    #expect(true)
}
