import Foundation

/// A small real file system (tmpfs) for failure tests: disk full, read-only. Needs root.
enum TmpfsMount {
    /// Whether this process may mount: probed once by really mounting a tiny tmpfs.
    static let available: Bool = {
        let probe = TemporaryDirectory()
        guard getuid() == 0, mount(probe.path, options: "size=64k") else { return false }
        return unmount(probe.path)
    }()

    @discardableResult
    static func mount(_ path: String, options: String) -> Bool {
        run("/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", path])
    }

    @discardableResult
    static func remount(_ path: String, options: String) -> Bool {
        run("/bin/mount", ["-o", "remount," + options, path])
    }

    @discardableResult
    static func unmount(_ path: String) -> Bool {
        run("/bin/umount", [path])
    }

    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return false
        }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// Writes `path` until the file system has no space left; returns the bytes written.
    static func fill(_ path: String) -> Int {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var written = 0
        var chunk = 64 * 1024
        let bytes = [UInt8](repeating: 0x5A, count: chunk)
        while chunk > 0 {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, chunk) }
            if n > 0 { written += n } else { chunk /= 2 }
        }
        fsync(fd)
        return written
    }
}
