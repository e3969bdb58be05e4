import Glibc
import Testing
@testable import TandemHTTP

/// Clients that keep making a little progress: the silence timers alone would never cut them.
@Suite("Slow uploads and slow readers", .serialized)
struct SlowClientTests {
    @Test func bodyTrickleIsCutOffWhileOthersAreServed() throws {
        try withServer({
            $0.timeouts.bodyRead = .milliseconds(300)
            $0.timeouts.minimumBodyRate = 200
        }, handler: echoHandler) { server in
            let slow = try TestClient(port: server.boundPort)
            try slow.send("POST /up HTTP/1.1\r\nHost: t\r\nContent-Length: 4000\r\n\r\n")
            // One byte per 50 ms: never silent for 300 ms, but 20 bytes/s where 200 are asked.
            let cutOff = try trickle(slow, Array(repeating: Array("x".utf8), count: 200), port: server.boundPort) { other in
                try other.send("POST /fast HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nok")
                #expect(try other.readResponse().text == "POST /fast ok")
            }
            #expect(cutOff)
            let r = try slow.readResponse()
            #expect(r.status == 408)
            #expect(r.text.contains("body_timeout"))
            #expect(r.headers["Connection"] == "close")
            #expect(slow.isClosedByPeer())
        }
    }

    /// The client's connect returns before the server's loop has accepted it.
    static func waitUntilAccepted(_ server: HTTPServer) throws {
        for _ in 0..<500 where server.connectionCount == 0 { usleep(2_000) }
        try #require(server.connectionCount == 1)
    }

    static let bigBody = [UInt8](repeating: UInt8(ascii: "z"), count: 16 << 20)
    static let bigHandler: HTTPHandler = { _, responder in responder.send(.text(String(decoding: bigBody, as: UTF8.self))) }

    @Test func clientThatNeverReadsIsCutOff() throws {
        try withServer({ $0.timeouts.write = .milliseconds(300) }, handler: Self.bigHandler) { server in
            let c = try TestClient(port: server.boundPort, receiveBufferBytes: 64 * 1024)
            try c.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
            try Self.waitUntilAccepted(server)
            var waited = 0
            while server.connectionCount > 0 && waited < 500 {
                usleep(10_000)
                waited += 1
            }
            #expect(server.connectionCount == 0)
            var total = 0
            while let n = try c.receiveRaw(limit: 65536) { total += n }
            #expect(total < Self.bigBody.count)
        }
    }

    /// Reads 32 KiB every 30 ms (about 1 MB/s): the server's socket buffer (up to 4 MiB)
    /// drains fast enough that its writes progress well within the 3 s stall limit. Returns
    /// whether the server dropped the connection within `iterations` reads; the server is
    /// asked, since the bytes already in the kernel's buffers take the reader seconds to reach.
    static func trickleRead(_ c: TestClient, _ server: HTTPServer, iterations: Int) throws -> Bool {
        for _ in 0..<iterations {
            if server.connectionCount == 0 { return true }
            guard try c.receiveRaw(limit: 32768) != nil else { return true }
            usleep(30_000)
        }
        return false
    }

    @Test func slowReaderIsCutOffByTheMinimumRate() throws {
        try withServer({
            $0.timeouts.write = .seconds(3)
            $0.timeouts.minimumWriteRate = 4_000_000
        }, handler: Self.bigHandler) { server in
            let c = try TestClient(port: server.boundPort, receiveBufferBytes: 64 * 1024)
            try c.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
            try Self.waitUntilAccepted(server)
            #expect(try Self.trickleRead(c, server, iterations: 400))
            var total = 0
            while let n = try c.receiveRaw(limit: 65536) { total += n }
            #expect(total < Self.bigBody.count)
        }
    }

    @Test func slowReaderThatKeepsTakingIsNotCutWithoutARate() throws {
        // The control for the test above: the same reader is not stalled, so only the rate cuts it.
        try withServer({
            $0.timeouts.write = .seconds(3)
            $0.timeouts.minimumWriteRate = 0
        }, handler: Self.bigHandler) { server in
            let c = try TestClient(port: server.boundPort, receiveBufferBytes: 64 * 1024)
            try c.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
            try Self.waitUntilAccepted(server)
            // Past the point where the rate would have cut it (3 s + bytes / 4 MB/s ≈ 4 s).
            #expect(try !Self.trickleRead(c, server, iterations: 180))
            #expect(server.connectionCount == 1)
        }
    }

    @Test func rateAllowanceGrowsWithBytes() {
        typealias T = ServerCore.TimeoutNanos
        #expect(T.allowance(grace: 5, bytes: 0, rate: 100) == 5)
        #expect(T.allowance(grace: 0, bytes: 150, rate: 100) == 1_500_000_000)
        #expect(T.allowance(grace: 0, bytes: 1 << 30, rate: 1) == UInt64(1 << 30) * 1_000_000_000)
        #expect(T.allowance(grace: 1, bytes: 10, rate: 0) == .max)
    }

    @Test func connectionCapLeavesDescriptorsForTheRest() {
        #expect(DescriptorLimit.connectionCap(configured: 10_000, descriptors: 1024, eventLoops: 2) == 768)
        #expect(DescriptorLimit.connectionCap(configured: 10_000, descriptors: 1 << 20, eventLoops: 2) == 10_000)
        #expect(DescriptorLimit.connectionCap(configured: 100, descriptors: 1024, eventLoops: 2) == 100)
        #expect(DescriptorLimit.connectionCap(configured: 10_000, descriptors: 40, eventLoops: 2) == 30)
        #expect(DescriptorLimit.connectionCap(configured: 10_000, descriptors: Int.max, eventLoops: 2) == 10_000)
    }

    @Test func startRaisesTheSoftDescriptorLimitAndCapsConnections() throws {
        try withServer({ $0.maxConnections = 1 << 30 }, handler: echoHandler) { server in
            var limit = rlimit()
            #expect(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0)
            #expect(limit.rlim_cur == limit.rlim_max)
            #expect(server.maxConnections < 1 << 30)
            #expect(UInt64(server.maxConnections) < UInt64(limit.rlim_cur))
        }
    }
}
