import Glibc

/// stdout and stdin by descriptor: Glibc's `stdout` is a global var Swift 6 will not share
/// across threads, and the orchestrator reads line by line with no buffering in between.
enum StandardStreams {
    static func writeLine(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.append(0x0A)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(1, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            offset += n
        }
    }

    /// One line of stdin, waiting at most `timeoutNanos` in all; nil at end of input or timeout.
    static func readLine(timeoutNanos: UInt64) -> String? {
        let deadline = Clock.now() + timeoutNanos
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let now = Clock.now()
            guard now < deadline else { return nil }
            var p = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, Int32((deadline - now) / 1_000_000 + 1))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let n = read(0, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            guard n == 1 else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == 0x0A { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }
}
