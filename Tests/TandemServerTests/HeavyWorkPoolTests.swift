import Dispatch
import Synchronization
import Testing
@testable import TandemServer

@Suite struct HeavyWorkPoolTests {
    @Test func aLanesJobsRunOneAtATimeInTheOrderTheyCame() {
        let pool = HeavyWorkPool(width: 4)
        let seen = Mutex<(order: [Int], running: Int, most: Int)>(([], 0, 0))
        let done = DispatchGroup()
        for i in 0..<200 {
            done.enter()
            pool.async(lane: "doc") {
                seen.withLock { $0.running += 1; $0.most = max($0.most, $0.running) }
                seen.withLock { $0.order.append(i); $0.running -= 1 }
                done.leave()
            }
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        let result = seen.withLock { $0 }
        #expect(result.order == Array(0..<200))
        #expect(result.most == 1)
    }

    @Test func aBusyLaneDoesNotHoldAnotherLanesJob() {
        let pool = HeavyWorkPool(width: 2)
        let gate = DispatchSemaphore(value: 0)
        let otherRan = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        done.enter()
        pool.async(lane: "hog") { gate.wait(); done.leave() }
        done.enter()
        pool.async(lane: "hog") { done.leave() }
        pool.async(lane: "other") { otherRan.signal() }
        // The hog's first job is still waiting for the gate when the other lane's job runs.
        #expect(otherRan.wait(timeout: .now() + 30) == .success)
        gate.signal()
        #expect(done.wait(timeout: .now() + 30) == .success)
    }
}
