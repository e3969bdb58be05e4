import Synchronization

/// A count that one part moves and others read (a gauge), shared by reference: an `Atomic`
/// cannot be, as it lives where it is declared. Every access is relaxed, as a gauge orders no
/// other memory; `load` takes the ordering only to read as an `Atomic` does.
final class SharedCount: Sendable {
    private let value = Atomic<Int>(0)

    func load(ordering _: AtomicLoadOrdering) -> Int { value.load(ordering: .relaxed) }
    func add(_ delta: Int) { value.add(delta, ordering: .relaxed) }
    func subtract(_ delta: Int) { value.subtract(delta, ordering: .relaxed) }
}

/// A value behind a lock, shared by reference between the part that keeps it and the edge
/// that seeds or reads it (a `Mutex` lives where it is declared).
final class SharedValue<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ initial: Value) {
        value = Mutex(initial)
    }

    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        value.withLock { body(&$0) }
    }
}
