import Foundation
import Logging
import Synchronization

/// A swift-log handler for one line per request at tens of thousands of requests per
/// second: each line is formatted straight into the sink's byte buffer (no intermediate
/// strings), the timestamp text is rebuilt once per second, and lines are written in batches.
struct LineLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    /// The label is not printed (one process, one log), so not kept either: the handler is
    /// copied a few times per line.
    init(label _: String, level: Logger.Level) {
        self.logLevel = level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var suffix = ""
        if !metadata.isEmpty || event.metadata?.isEmpty == false {
            let merged = event.metadata.map { metadata.merging($0) { $1 } } ?? metadata
            for (k, v) in merged.sorted(by: { $0.key < $1.key }) { suffix += " \(k)=\(v)" }
        }
        LogSink.shared.append(level: event.level, message: event.message.description, suffix: suffix)
    }
}

/// Buffers log lines and writes them to standard error in batches, as nginx's buffered
/// access log does: one write(2) per 64 KiB or per 100 ms instead of one per request.
/// Warnings and errors are written at once, with everything before them.
final class LogSink: Sendable {
    static let shared = LogSink()

    struct State {
        var bytes: [UInt8] = []
        /// ISO 8601 UTC to the second, cached: formatting a date is slow on Linux, and every
        /// line has one.
        var second = -1
        var stamp: [UInt8] = []
    }

    private let state = Mutex(State())
    private static let limit = 64 * 1024

    private init() {
        Thread.detachNewThread { [self] in
            while true {
                Thread.sleep(forTimeInterval: 0.1)
                flush()
            }
        }
    }

    func append(level: Logger.Level, message: String, suffix: String) {
        var tv = timeval()
        gettimeofday(&tv, nil)
        let second = tv.tv_sec
        let urgent = level >= .warning
        let full: [UInt8]? = state.withLock { s in
            if s.second != second {
                s.second = second
                s.stamp = Self.timestamp(second)
            }
            s.bytes.append(contentsOf: s.stamp)
            s.bytes.append(UInt8(ascii: " "))
            let name = Self.levelName(level)
            s.bytes.append(contentsOf: UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            s.bytes.append(UInt8(ascii: " "))
            s.bytes.append(contentsOf: message.utf8)
            if !suffix.isEmpty { s.bytes.append(contentsOf: suffix.utf8) }
            s.bytes.append(UInt8(ascii: "\n"))
            guard urgent || s.bytes.count >= Self.limit else { return nil }
            defer { s.bytes.removeAll(keepingCapacity: true) }
            return s.bytes
        }
        if let full { Self.write(full) }
    }

    func flush() {
        let pending = state.withLock { s -> [UInt8] in
            defer { s.bytes.removeAll(keepingCapacity: true) }
            return s.bytes
        }
        if !pending.isEmpty { Self.write(pending) }
    }

    static func levelName(_ level: Logger.Level) -> StaticString {
        switch level {
        case .trace: "TRACE"
        case .debug: "DEBUG"
        case .info: "INFO"
        case .notice: "NOTICE"
        case .warning: "WARNING"
        case .error: "ERROR"
        case .critical: "CRITICAL"
        }
    }

    static func timestamp(_ second: Int) -> [UInt8] {
        var t = second
        var parts = tm()
        gmtime_r(&t, &parts)
        var buf = [CChar](repeating: 0, count: 32)
        strftime(&buf, 32, "%Y-%m-%dT%H:%M:%SZ", &parts)
        return buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
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
