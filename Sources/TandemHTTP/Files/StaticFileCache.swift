import Synchronization

/// Small files' contents by request path, bounded in entries and bytes. A hit is still
/// checked against the disk (one `stat`) by the caller before it is served.
final class StaticFileCache: Sendable {
    private struct State {
        var files: [Substring: StaticFile] = [:]
        var bytes = 0
    }

    let fileSizeLimit: Int
    let byteLimit: Int
    let entryLimit: Int
    private let state = Mutex(State())

    init(fileSizeLimit: Int, byteLimit: Int, entryLimit: Int) {
        self.fileSizeLimit = fileSizeLimit
        self.byteLimit = byteLimit
        self.entryLimit = entryLimit
    }

    /// Keyed by the raw path as a Substring, so a request's own `path` looks up without
    /// allocating a String.
    func file(for path: Substring) -> StaticFile? {
        state.withLock { $0.files[path] }
    }

    func store(_ file: StaticFile, for path: Substring) {
        let cost = file.body.count + (file.gzipped?.body.count ?? 0)
        guard file.body.count <= fileSizeLimit, cost <= byteLimit else { return }
        let key = Substring(String(path))
        state.withLock { state in
            if let old = state.files.removeValue(forKey: key) {
                state.bytes -= old.body.count + (old.gzipped?.body.count ?? 0)
            }
            // Evicts whatever the dictionary yields first: effectively random, cheap, and
            // enough for a bounded cache of a web client's handful of files.
            while !state.files.isEmpty && (state.bytes + cost > byteLimit || state.files.count >= entryLimit) {
                let victim = state.files.remove(at: state.files.startIndex).value
                state.bytes -= victim.body.count + (victim.gzipped?.body.count ?? 0)
            }
            state.files[key] = file
            state.bytes += cost
        }
    }

    func remove(_ path: Substring) {
        state.withLock { state in
            if let old = state.files.removeValue(forKey: path) {
                state.bytes -= old.body.count + (old.gzipped?.body.count ?? 0)
            }
        }
    }

    var count: Int { state.withLock { $0.files.count } }
}
