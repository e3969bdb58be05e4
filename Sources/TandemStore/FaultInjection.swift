import Foundation

/// Faults injected on purpose, for tests only; every one is off unless its environment
/// variable is set. Tests/e2e/test_slow_store.py uses them to show that no event loop waits
/// on a slow store where a real one cannot be slowed from outside (SQLite's readers never
/// wait for another process's locks).
public enum FaultInjection {
    /// `TANDEM_FAULT_SLOW_VERSION_READS=SECONDS`: every read of saved versions from SQLite
    /// takes that much longer, as behind a slow disk.
    public static let slowVersionReads: Double =
        ProcessInfo.processInfo.environment["TANDEM_FAULT_SLOW_VERSION_READS"].flatMap(Double.init).map { max(0, $0) } ?? 0

    static func versionRead() {
        if slowVersionReads > 0 { Thread.sleep(forTimeInterval: slowVersionReads) }
    }
}
