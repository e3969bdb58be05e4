import Glibc

enum MonotonicClock {
    @inline(__always)
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}

/// The `Date` field value (IMF-fixdate), formatted at most once a second per loop.
struct HTTPDateCache {
    private(set) var bytes: [UInt8] = []
    private var second: Int = -1

    mutating func refresh() {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &ts)
        let s = Int(ts.tv_sec)
        if s == second { return }
        second = s
        var t = time_t(s)
        var tm = Glibc.tm()
        gmtime_r(&t, &tm)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        var out: [UInt8] = []
        out.reserveCapacity(29)
        func two(_ n: Int32) { out.append(UInt8(48 + n / 10)); out.append(UInt8(48 + n % 10)) }
        out.append(contentsOf: days[Int(tm.tm_wday)].utf8)
        out.append(contentsOf: ", ".utf8)
        two(tm.tm_mday)
        out.append(32)
        out.append(contentsOf: months[Int(tm.tm_mon)].utf8)
        out.append(32)
        let year = Int(tm.tm_year) + 1900
        out.append(contentsOf: String(year).utf8)
        out.append(32)
        two(tm.tm_hour); out.append(58); two(tm.tm_min); out.append(58); two(tm.tm_sec)
        out.append(contentsOf: " GMT".utf8)
        bytes = out
    }
}
