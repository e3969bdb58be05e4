import Glibc

/// Nanoseconds on CLOCK_MONOTONIC: the clock Python's `time.monotonic()` reads on Linux, so
/// the orchestrator's timetable and the generator's timestamps are directly comparable.
enum Clock {
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// CPU time of the calling thread, so each loop can tell whether it was the bottleneck.
    static func threadCPU() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    static func processCPU() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    static func nanoseconds(fromSeconds s: Double) -> UInt64 { UInt64((s * 1e9).rounded()) }
}
