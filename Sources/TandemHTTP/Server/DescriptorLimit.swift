import Glibc

/// The process's open-file limit, which bounds how many connections can be held at all.
enum DescriptorLimit {
    /// Raises the soft RLIMIT_NOFILE to the hard limit (the default soft limit, often 1024,
    /// is far below a server's connection count) and returns the soft limit in force.
    static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return Int.max }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur >= rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }

    /// The connections `descriptors` can hold after keeping some back for what else the
    /// process opens: listeners, epoll and eventfds, the store's database files, static
    /// files being read, the log.
    static func connectionCap(configured: Int, descriptors: Int, eventLoops: Int) -> Int {
        guard descriptors < Int.max / 2 else { return configured }
        let reserved = min(descriptors / 4, 256 + 4 * eventLoops)
        return max(1, min(configured, descriptors - reserved))
    }

    private static var resource: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }
}
