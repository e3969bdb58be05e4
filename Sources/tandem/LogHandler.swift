import Foundation
import Logging
import Synchronization

/// A swift-log handler for one line per request at tens of thousands of requests per
/// second: the timestamp text is rebuilt once per second, and lines are written in batches.
struct LineLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    let label: String

    init(label: String, level: Logger.Level) {
        self.label = label
        self.logLevel = level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var line = Clock.shared.timestamp()
        line += " "
        line += event.level.rawValue.uppercased()
        line += " "
        line += event.message.description
        let merged = event.metadata.map { metadata.merging($0) { $1 } } ?? metadata
        if !merged.isEmpty {
            for (k, v) in merged.sorted(by: { $0.key < $1.key }) { line += " \(k)=\(v)" }
        }
        line += "\n"
        LogSink.shared.append(line, urgent: event.level >= .warning)
    }

    /// ISO 8601 UTC to the second, cached: formatting a date costs microseconds on Linux.
    final class Clock: Sendable {
        static let shared = Clock()
        private let cache = Mutex<(Int, String)>((-1, ""))

        func timestamp() -> String {
            var tv = timeval()
            gettimeofday(&tv, nil)
            let second = tv.tv_sec
            return cache.withLock { c in
                if c.0 != second {
                    var t = second
                    var parts = tm()
                    gmtime_r(&t, &parts)
                    var buf = [CChar](repeating: 0, count: 32)
                    strftime(&buf, 32, "%Y-%m-%dT%H:%M:%SZ", &parts)
                    c = (second, String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
                }
                return c.1
            }
        }
    }
}

/// Buffers log lines and writes them to standard error in batches, as nginx's buffered
/// access log does: one write(2) per 64 KiB or per 100 ms instead of one per request.
/// Warnings and errors are written at once, with everything before them.
final class LogSink: Sendable {
    static let shared = LogSink()
    private let buffer = Mutex<[UInt8]>([])
    private static let limit = 64 * 1024

    private init() {
        Thread.detachNewThread { [self] in
            while true {
                Thread.sleep(forTimeInterval: 0.1)
                flush()
            }
        }
    }

    func append(_ line: String, urgent: Bool) {
        let full: [UInt8]? = buffer.withLock { b in
            b.append(contentsOf: line.utf8)
            guard urgent || b.count >= Self.limit else { return nil }
            defer { b.removeAll(keepingCapacity: true) }
            return b
        }
        if let full { Self.write(full) }
    }

    func flush() {
        let pending = buffer.withLock { b -> [UInt8] in
            defer { b.removeAll(keepingCapacity: true) }
            return b
        }
        if !pending.isEmpty { Self.write(pending) }
    }

    private static func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buf in
            var off = 0
            while off < buf.count {
                let n = Glibc.write(2, buf.baseAddress! + off, buf.count - off)
                if n <= 0 { if errno == EINTR { continue }; return }
                off += n
            }
        }
    }
}
