#if canImport(Glibc)
import Glibc
#endif

/// The IMF-fixdate form of HTTP dates (RFC 9110 §5.6.7), `Sun, 06 Nov 1994 08:49:37 GMT`,
/// written by hand: DateFormatter is slow and this runs once per file version.
enum IMFFixdate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func string(secondsSince1970 seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "Thu, 01 Jan 1970 00:00:00 GMT" }
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let weekday = days[Int(parts.tm_wday)]
        let month = months[Int(parts.tm_mon)]
        return "\(weekday), \(two(parts.tm_mday)) \(month) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
