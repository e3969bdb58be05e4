import Testing
@testable import TandemServer

/// Sign-in names fold to one spelling, and failed sign-ins are counted per account.
@Suite struct AccountsTests {
    @Test(arguments: [
        ("Ada", "ada"), ("ADA.lovelace@example.org", "ada.lovelace@example.org"), ("Zoë", "zoë"),
        ("Zoe\u{308}", "zoë"), ("o_brien-2", "o_brien-2"),
    ])
    func namesAreComparedAfterNFCAndLowerCasing(_ typed: String, _ stored: String) {
        #expect(UserName.normalized(typed) == stored)
    }

    @Test(arguments: ["", " ada", "ada ", "a b", "ada\u{0}", "ada\n", "a/b", "a:b", String(repeating: "a", count: 65)])
    func namesThatCouldHideSomethingAreRefused(_ typed: String) {
        #expect(UserName.normalized(typed) == nil)
    }

    @Test func passwordsAreEightCharactersToAKibibyte() {
        #expect(!UserName.acceptablePassword("1234567"))
        #expect(UserName.acceptablePassword("12345678"))
        #expect(UserName.acceptablePassword(String(repeating: "é", count: 512)))
        #expect(!UserName.acceptablePassword(String(repeating: "é", count: 513)))
    }

    @Test func anAccountOutOfAttemptsWaitsAndGetsThemBackOverTime() {
        let throttle = AccountThrottle(count: 3, seconds: 30)
        for _ in 0..<3 {
            #expect(throttle.wait(for: "ada", now: 100) == nil)
            throttle.failed("ada", now: 100)
        }
        #expect(throttle.wait(for: "ada", now: 100) == 10)
        #expect(throttle.wait(for: "bob", now: 100) == nil)
        #expect(throttle.wait(for: "ada", now: 110) == nil)
        throttle.failed("ada", now: 110)
        #expect(throttle.wait(for: "ada", now: 110) == 10)
        throttle.succeeded("ada")
        #expect(throttle.wait(for: "ada", now: 110) == nil)
    }
}
