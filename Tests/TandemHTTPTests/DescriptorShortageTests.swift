import Glibc
import Logging
import Synchronization
import Testing
@testable import TandemHTTP

/// Collects log messages, for tests that check what the server says and how often.
final class LogCapture: Sendable {
    let lines = Mutex<[(Logger.Level, String)]>([])

    var logger: Logger {
        Logger(label: "capture") { _ in Handler(capture: self) }
    }

    func count(_ level: Logger.Level, containing text: String) -> Int {
        lines.withLock { $0.filter { $0.0 == level && $0.1.contains(text) }.count }
    }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            capture.lines.withLock { $0.append((event.level, event.message.description)) }
        }
    }
}

/// Running out of descriptors cannot be staged in the test process without starving the
/// other tests of theirs, so accept4 is swapped for one that fails with EMFILE on demand.
@Suite("Out of file descriptors", .serialized)
struct DescriptorShortageTests {
    final class FailingAccept: Sendable {
        let failing = Mutex(true)
        let failedCalls = Mutex(0)
    }

    @Test func acceptBacksOffAndLogsOncePerShortage() throws {
        let state = FailingAccept()
        let log = LogCapture()
        try withServer({
            $0.eventLoopCount = 1
            $0.logger = log.logger
            let real = $0.accept
            $0.accept = { listener, address, length, flags in
                if state.failing.withLock({ $0 }) {
                    state.failedCalls.withLock { $0 += 1 }
                    errno = EMFILE
                    return -1
                }
                return real(listener, address, length, flags)
            }
        }, handler: echoHandler) { server in
            let c = try TestClient(port: server.boundPort)
            try c.send("GET /waited HTTP/1.1\r\nHost: t\r\n\r\n")
            usleep(400_000)
            // The listener stays readable all along: without a pause this is thousands of calls.
            let calls = state.failedCalls.withLock { $0 }
            #expect(calls > 0)
            #expect(calls < 40, "accept was called \(calls) times in 400 ms")
            state.failing.withLock { $0 = false }
            // Descriptors are back: the waiting client is accepted and served.
            #expect(try c.readResponse().text == "GET /waited ")
            #expect(log.count(.error, containing: "out of file descriptors") == 1)
            #expect(log.count(.notice, containing: "descriptors available again") == 1)
        }
    }
}
