/// An exponential moving average of durations (ns), weighted 1/8 to the newest, as TCP's
/// smoothed round-trip time: quick enough to follow the disk, steady against one outlier.
struct MovingAverage: Sendable {
    private(set) var value: UInt64 = 0

    mutating func add(_ sample: UInt64) {
        value = value == 0 ? sample : value - value / 8 + sample / 8
    }
}
