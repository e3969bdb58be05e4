import CLinux
import Glibc

/// Turns SIGTERM and SIGINT into an ordinary call, for graceful shutdown.
///
/// Call `block()` first thing in `main`, before any thread starts, so every thread
/// inherits the mask and the signals wait for `wait()` instead of killing the process.
public enum SignalWatcher {
    /// Blocks SIGTERM and SIGINT in the calling thread (and threads started later); ignores SIGPIPE.
    public static func block() {
        signal(SIGPIPE, SIG_IGN)
        var set = signalSet
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Waits for SIGTERM or SIGINT and returns its number.
    public static func wait() -> Int32 {
        var set = signalSet
        var received: Int32 = 0
        while sigwait(&set, &received) != 0 {}
        return received
    }

    /// Runs `handler` on its own thread when the first SIGTERM or SIGINT arrives.
    public static func onSignal(_ handler: @escaping @Sendable (Int32) -> Void) throws {
        _ = try HTTPServer.spawn { handler(wait()) }
    }

    private static var signalSet: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        return set
    }
}
