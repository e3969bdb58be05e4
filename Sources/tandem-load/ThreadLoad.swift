// How busy a generator thread was: on this 2-core machine the generator shares the CPU
// with the server, and a saturated or starved generator must not pass for a slow server.

/// Thread and process CPU at a phase's two bounds, sampled by the loop living through it.
struct CPUWindow {
    var startWall: UInt64 = 0, startThread: UInt64 = 0, startProcess: UInt64 = 0
    var endWall: UInt64 = 0, endThread: UInt64 = 0, endProcess: UInt64 = 0
    var started = false, ended = false

    mutating func sample(now: UInt64, start: UInt64, end: UInt64) {
        if !started && now >= start {
            started = true
            (startWall, startThread, startProcess) = (now, Clock.threadCPU(), Clock.processCPU())
        }
        if started && !ended && now >= end {
            ended = true
            (endWall, endThread, endProcess) = (now, Clock.threadCPU(), Clock.processCPU())
        }
    }

    /// Share of one core this thread used, and cores the whole process used.
    var threadShare: Double { ended && endWall > startWall ? Double(endThread - startThread) / Double(endWall - startWall) : .nan }
    var processCores: Double { ended && endWall > startWall ? Double(endProcess - startProcess) / Double(endWall - startWall) : .nan }
}

/// The longest turn of a loop that waits 10 ms at most: a much longer one means the thread
/// was off the CPU or busy, and what it timed then says more about it than about the server.
struct LongestTurn {
    private var last: UInt64 = 0
    private(set) var nanos: UInt64 = 0

    mutating func tick(_ now: UInt64) {
        if last != 0 && now - last > nanos { nanos = now - last }
        last = now
    }
}
