import Foundation

/// The WAL file as the syncer flushes it: opened on first use (SQLite creates it with the first
/// write) and again if SQLite ever replaced it, so the flush always reaches the file it writes.
struct WALFile {
    let path: String
    private var fd: Int32 = -1
    private var inode: ino_t = 0

    init(path: String) { self.path = path }

    mutating func flush() -> Result<Void, StoreError> {
        var st = stat()
        if stat(path, &st) != 0 {
            return .failure(.io("cannot find the WAL \(path): \(String(cString: strerror(errno)))"))
        }
        if fd < 0 || st.st_ino != inode {
            close()
            fd = open(path, O_RDWR | O_CLOEXEC)
            if fd < 0 { return .failure(.io("cannot open the WAL \(path): \(String(cString: strerror(errno)))")) }
            inode = st.st_ino
        }
        while fdatasync(fd) != 0 {
            if errno == EINTR { continue }
            return .failure(.io("fdatasync of the WAL failed: \(String(cString: strerror(errno)))"))
        }
        return .success(())
    }

    mutating func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}
