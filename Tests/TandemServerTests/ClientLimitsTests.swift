import Synchronization
import Testing
import TandemHTTP
@testable import TandemServer

@Suite("Per-client limits")
struct ClientLimitsTests {
    /// A clock the test moves by hand: no test here waits.
    final class ManualClock: Sendable {
        let now = Mutex(1_000.0)
        func advance(_ seconds: Double) { now.withLock { $0 += seconds } }
    }

    static func limiter(_ spec: String, clock: ManualClock) throws -> RateLimiter {
        var limits = RateLimits()
        try limits.set(spec)
        return RateLimiter(limits: limits) { clock.now.withLock { $0 } }
    }

    @Test func aClientGetsItsBurstThenOneMoreAsTheBucketRefills() throws {
        let clock = ManualClock()
        let limiter = try Self.limiter("sessions=3/60", clock: clock)
        let ada = IPAddress("127.0.0.7")!, bob = IPAddress("127.0.0.8")!
        for _ in 0..<3 { #expect(limiter.take(.sessions, for: ada) == nil) }
        let wait = try #require(limiter.take(.sessions, for: ada))
        #expect(wait > 19 && wait <= 20)
        #expect(limiter.take(.sessions, for: bob) == nil)
        clock.advance(20)
        #expect(limiter.take(.sessions, for: ada) == nil)
        #expect(limiter.take(.sessions, for: ada) != nil)
    }

    @Test func credentialsAreRefusedOnlyOnceTheClientsFailuresEmptiedItsBucket() throws {
        let clock = ManualClock()
        let limiter = try Self.limiter("auth=2/10", clock: clock)
        let ada = IPAddress("127.0.0.7")!
        #expect(limiter.refusesCredentials(from: ada) == nil)
        _ = limiter.take(.auth, for: ada)
        #expect(limiter.refusesCredentials(from: ada) == nil)
        _ = limiter.take(.auth, for: ada)
        #expect(limiter.refusesCredentials(from: ada) != nil)
        #expect(limiter.refusesCredentials(from: IPAddress("127.0.0.8")!) == nil)
        clock.advance(5)
        #expect(limiter.refusesCredentials(from: ada) == nil)
    }

    @Test func aLimitOfZeroIsOff() throws {
        let limiter = try Self.limiter("documents=0/60", clock: ManualClock())
        for _ in 0..<10_000 { #expect(limiter.take(.documents, for: IPAddress("127.0.0.1")!) == nil) }
    }

    @Test(arguments: ["sessions", "sessions=", "teapots=1/1", "sessions=1/0", "sessions=-1/60", "sessions=x/60", "sessions=1/86401"])
    func aMalformedRateLimitIsRefused(_ spec: String) {
        var limits = RateLimits()
        #expect(throws: RateLimitSpecError.self) { try limits.set(spec) }
    }

    @Test func theRefusalIs429WithRetryAfterAndNamesTheLimit() throws {
        let limiter = try Self.limiter("links=1/60", clock: ManualClock())
        let refusal = limiter.refusal(.links, retryAfter: 12.2)
        #expect(refusal.status == .tooManyRequests)
        #expect(refusal.code == "rate_limited")
        #expect(refusal.headers["Retry-After"] == "13")
        #expect(refusal.message.contains("'links'"))
    }

    @Test func forwardedForNamesTheClientOnlyBehindATrustedProxy() {
        let resolver = ClientAddressResolver(trustedProxies: [CIDR("127.0.0.1")!, CIDR("10.0.0.0/8")!])
        func client(_ peer: String, _ forwarded: String?) -> String? {
            var request = HTTPRequest(method: .get, target: "/", remoteAddress: peer)
            if let forwarded { request.headers.add("X-Forwarded-For", forwarded) }
            return resolver.client(of: request)?.description
        }
        #expect(client("127.0.0.1:1", "127.0.0.9") == "127.0.0.9")
        #expect(client("127.0.0.1:1", "127.0.0.6, 127.0.0.9, 10.1.1.1") == "127.0.0.9")
        #expect(client("127.0.0.2:1", "127.0.0.9") == "127.0.0.2")
        #expect(client("127.0.0.1:1", nil) == "127.0.0.1")
        #expect(client("127.0.0.1:1", "garbage, 127.0.0.9") == "127.0.0.9")
    }

    @Test(arguments: ["                ", "aaaaaaaaaaaaaaaaaaaa", "abababababababababab", "abcdefgabcdefgabcdefg", "short-Key1"])
    func anOperatorKeyWithoutEntropyIsRefused(_ key: String) {
        #expect(OperatorKeyRule.problem(with: key) != nil)
    }

    @Test func anOperatorKeyWithEnoughDistinctCharactersIsAccepted() {
        #expect(OperatorKeyRule.problem(with: "e2e-operator-key-7f3c9a") == nil)
    }
}
