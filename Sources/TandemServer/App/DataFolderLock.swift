import Glibc
import Synchronization

/// An exclusive `flock` on `tandem.lock` in the data folder, held for the life of the
/// process: a second server on the same folder would write the same SQLite file and journal
/// behind the first one's back. The kernel drops the lock when the process ends, however it ends.
final class DataFolderLock: Sendable {
    let path: String
    private let descriptor: Mutex<Int32>

    init(directory: String) throws(StartupError) {
        path = directory + "/tandem.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StartupError("cannot open \(path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let holder = Self.readPID(fd)
            close(fd)
            throw StartupError("the data folder \(directory) is in use by another tandem serve"
                + (holder.map { " (pid \($0))" } ?? "") + "; stop it or give this one another --data")
        }
        // The holder's pid, for the message a second server prints.
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        descriptor = Mutex(fd)
    }

    deinit { release() }

    /// Lets another server have the folder (after shutdown closed the store); idempotent.
    func release() {
        descriptor.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    private static func readPID(_ fd: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        let text = String(decoding: buffer[..<n], as: UTF8.self).filter(\.isNumber)
        return text.isEmpty ? nil : text
    }
}

/// Why the server cannot start, said plainly (printed as the command's error).
public struct StartupError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
