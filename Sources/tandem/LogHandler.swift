import Foundation
import Logging
import Synchronization

/// A swift-log handler for one line per request at tens of thousands of requests per
/// second: the timestamp text is rebuilt once per second, and each line is one write(2).
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
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { buf in
            var off = 0
            while off < buf.count {
                let n = write(2, buf.baseAddress! + off, buf.count - off)
                if n <= 0 { if errno == EINTR { continue }; return }
                off += n
            }
        }
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
