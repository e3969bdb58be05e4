import Glibc

/// A loop that owns its sockets and state and runs on a thread of its own.
protocol ThreadBody: AnyObject {
    func run()
}

/// A pthread running one `ThreadBody`. A type, not a closure literal in main.swift: such a
/// closure is main-actor code to Swift 6, and its isolation check traps on another thread.
/// The body is handed over whole (no other thread touches it until `join` returns), which
/// is what makes the unchecked Sendable sound.
final class Worker: @unchecked Sendable {
    private let body: any ThreadBody
    private var thread = pthread_t()

    init(_ body: any ThreadBody) {
        self.body = body
    }

    func start() {
        let context = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(&thread, nil, { raw in
            let worker = Unmanaged<Worker>.fromOpaque(raw!).takeRetainedValue()
            worker.body.run()
            return nil
        }, context)
        guard created == 0 else { fail("pthread_create: \(created)") }
    }

    func join() {
        pthread_join(thread, nil)
    }
}
