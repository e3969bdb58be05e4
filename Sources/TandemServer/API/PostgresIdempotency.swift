import Dispatch
import Foundation
import Logging
import Synchronization
import TandemHTTP
import TandemStore

/// The `IdempotencyStore` of nodes sharing one PostgreSQL: the keys and their answers live in
/// `idempotency_keys` (`PostgresIdempotencyKeys`), so a client that lost an answer can resend
/// to any node and get the first answer, and nothing is applied twice. This node keeps only
/// the requests it is busy with, so that its own resends wait for them without the database.
///
/// - Claiming is one round trip on a reader connection. Requests (`start`) claim on `claims`,
///   never on an event loop, which a slow or locked table would stop for every connection it
///   serves; the request goes on from the claim's completion, on its loop. (`perform` claims
///   on the caller's thread.) Requests without a key never get here.
/// - The answer is committed to the database before it is sent; the write is a job on the
///   store's writer and the answer leaves from its completion, so no thread waits for it.
/// - A key another node holds and has not answered is polled every `pollInterval` on a queue
///   of its own (never an event loop) for up to `pollTimeout`, then replayed; a claim older
///   than `staleAfter` (its node most likely died mid-request) or one still unanswered when
///   the wait ends is `409 idempotency_key_in_flight`: whether it took effect is unknown.
/// - Without the database's word (it cannot be reached) a keyed request is `503
///   database_unavailable` and does nothing, rather than risk being applied twice.
final class PostgresIdempotency: IdempotencyStore {
    /// A key this node is busy with: asking the database, waiting for another node's answer,
    /// or running the request.
    private struct Flight {
        var fingerprint: [UInt8]
        /// The request that came first: if it is the one that runs, its answer is unmarked.
        var first: HTTPResponder
        /// Resends of the same request to this node meanwhile.
        var waiters: [HTTPResponder] = []
    }

    /// An answer given whose storing failed: replayed from here, by this node only, until it
    /// expires (elsewhere the key stays unanswered: `409 idempotency_key_in_flight`).
    private struct Unstored {
        var response: HTTPResponse
        var at: Double
        var fingerprint: [UInt8]
    }

    private struct Local {
        var flights: [String: Flight] = [:]
        var unstored: [String: Unstored] = [:]
    }

    let keys: PostgresIdempotencyKeys
    /// Names this process in the rows it claims (`PostgresStore.nodeID`): unique per process,
    /// so a row pending "on this node" is always one this process knows about.
    let node: String
    private let clock: @Sendable () -> Double
    private let logger: Logger
    private let pollInterval: Double
    private let pollTimeout: Double
    private let staleAfter: Double
    /// Bytes of answers the cluster keeps (`PostgresIdempotencyKeys.deleteOverBudget`), the
    /// oldest forgotten first; each answer over `Idempotency.maxKeptAnswerBytes` is kept as
    /// `Idempotency.notKept`.
    let budgetBytes: Int
    private let local = Mutex(Local())
    private let polls = DispatchQueue(label: "tandem.idempotency-polls")
    /// Where claims wait for the database: concurrent, so one key's slow claim does not hold
    /// up another's (the readers' own limit bounds how many ask at once).
    private let claims = DispatchQueue(label: "tandem.idempotency-claims", attributes: .concurrent)

    init(keys: PostgresIdempotencyKeys, node: String, logger: Logger,
         pollInterval: Double = 0.02, pollTimeout: Double = 10, staleAfter: Double = 30, budgetBytes: Int = 64 << 20,
         clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.budgetBytes = budgetBytes
        self.keys = keys
        self.node = node
        self.logger = logger
        self.pollInterval = pollInterval
        self.pollTimeout = pollTimeout
        self.staleAfter = staleAfter
        self.clock = clock
    }

    func perform(_ key: String, fingerprint: [UInt8], responder: HTTPResponder,
                 work: @escaping @Sendable (HTTPResponder) -> Void) {
        let now = clock()
        let ttl = keys.ttl
        enum Next { case answer(HTTPResponse), wait, ask }
        let next: Next = local.withLock { local in
            if let kept = local.unstored[key], now - kept.at < ttl {
                return .answer(kept.fingerprint == fingerprint ? Idempotency.replayed(kept.response) : Idempotency.reused.response)
            }
            if let flight = local.flights[key] {
                guard flight.fingerprint == fingerprint else { return .answer(Idempotency.reused.response) }
                local.flights[key]!.waiters.append(responder)
                return .wait
            }
            local.flights[key] = Flight(fingerprint: fingerprint, first: responder)
            return .ask
        }
        switch next {
        case .answer(let response): responder.send(response)
        case .wait: break  // answered with the request in flight here
        case .ask: ask(key, fingerprint: fingerprint, deadline: now + pollTimeout, work: work)
        }
    }

    func start(_ key: String, fingerprint: [UInt8], responder: HTTPResponder, executor: RequestExecutor,
               work: @escaping @Sendable (HTTPResponder) -> Void) {
        claims.async { [self] in
            perform(key, fingerprint: fingerprint, responder: responder) { answering in executor.execute { work(answering) } }
        }
    }

    func expire() {
        let now = clock()
        let ttl = keys.ttl
        local.withLock { $0.unstored = $0.unstored.filter { now - $0.value.at < ttl } }
        keys.deleteExpired(now: now) { [logger] result in
            if case .failure(let error) = result { logger.warning("idempotency: deleting expired keys failed: \(error)") }
        }
        keys.deleteOverBudget(budgetBytes) { [logger] result in
            if case .failure(let error) = result { logger.warning("idempotency: forgetting answers over the budget failed: \(error)") }
        }
    }

    /// Claims `key` in the database for the flight this node holds, and acts on what it finds.
    private func ask(_ key: String, fingerprint: [UInt8], deadline: Double, work: @escaping @Sendable (HTTPResponder) -> Void) {
        let started = clock()
        let claim: IdempotencyClaim
        do {
            claim = try keys.claim(SealedAnswers.column(key), fingerprint: fingerprint, node: node, now: started)
        } catch {
            // Without the database's word, running the request might apply it a second time.
            logger.error("idempotency: claiming a key failed: \(error)")
            return finish(key, first: APIError.databaseUnavailable.response)
        }
        switch claim {
        case .claimed: run(key, started: started, work: work)
        case .existing(let record): settle(key, fingerprint: fingerprint, record: record, now: started, deadline: deadline, work: work)
        }
    }

    /// Answers from a record another claim holds, or goes on waiting for its answer.
    private func settle(_ key: String, fingerprint: [UInt8], record: IdempotencyRecord, now: Double, deadline: Double,
                        work: @escaping @Sendable (HTTPResponder) -> Void) {
        guard record.fingerprint == fingerprint else { return finish(key, first: Idempotency.reused.response) }
        switch record.state {
        case .done(let sealed):
            guard let answer = SealedAnswers.open(sealed, key: key) else {
                logger.error("idempotency: a stored answer does not open with its key; it was altered")
                return finish(key, first: Idempotency.inFlight.response)
            }
            finish(key, first: Idempotency.replayed(answer.response))
        case .pending(let holder, let started):
            // A claim whose node died is never answered: no use waiting out the deadline.
            if now - started >= staleAfter || now >= deadline || (holder != node && (try? keys.nodeIsGone(holder)) == true) {
                finish(key, first: Idempotency.inFlight.response)
            } else {
                poll(key, fingerprint: fingerprint, deadline: deadline, work: work)
            }
        }
    }

    /// Reads the key again after `pollInterval`, on `polls`.
    private func poll(_ key: String, fingerprint: [UInt8], deadline: Double, work: @escaping @Sendable (HTTPResponder) -> Void) {
        polls.asyncAfter(deadline: .now() + pollInterval) { [self] in
            let now = clock()
            let record: IdempotencyRecord?
            do {
                record = try keys.record(SealedAnswers.column(key), now: now)
            } catch {
                logger.warning("idempotency: reading a key failed: \(error)")
                if now >= deadline { return finish(key, first: APIError.databaseUnavailable.response) }
                return poll(key, fingerprint: fingerprint, deadline: deadline, work: work)
            }
            guard let record else {
                // The claim is gone (its answer was a refusal, not kept; or it expired): the
                // key is free, so ask for it again. Not on `polls`: the request may run.
                claims.async { [self] in ask(key, fingerprint: fingerprint, deadline: deadline, work: work) }
                return
            }
            settle(key, fingerprint: fingerprint, record: record, now: now, deadline: deadline, work: work)
        }
    }

    /// Runs the request under this node's claim; its answer is stored (or, if not kept, the
    /// claim given up) before anyone is sent it.
    private func run(_ key: String, started: Double, work: @escaping @Sendable (HTTPResponder) -> Void) {
        work(HTTPResponder { [self] response in
            let answered = clock()
            // A large answer is not kept whole: replays, on any node, hear that it was applied.
            let kept = Idempotency.keptBytes(response) > Idempotency.maxKeptAnswerBytes ? Idempotency.notKept.response : response
            guard Idempotency.keeps(response), let plain = StoredAnswer(kept, answered: answered),
                  let answer = SealedAnswers.seal(plain, key: key) else {
                keys.forget(SealedAnswers.column(key), node: node, started: started) { [self] result in
                    if case .failure(let error) = result { logger.warning("idempotency: freeing a key failed: \(error)") }
                    finish(key, first: response, waiters: Idempotency.replayed(response))
                }
                return
            }
            keys.complete(SealedAnswers.column(key), node: node, started: started, answer: answer) { [self] result in
                if case .failure(let error) = result {
                    // The change is committed whatever becomes of its answer: send it anyway.
                    // Only this node can replay it; the others find the key unanswered.
                    logger.error("idempotency: storing an answer failed, only this node can replay it: \(error)")
                    local.withLock { local in
                        guard let flight = local.flights[key] else { return }
                        local.unstored[key] = Unstored(response: kept, at: answered, fingerprint: flight.fingerprint)
                    }
                }
                finish(key, first: response, waiters: Idempotency.replayed(response))
            }
        })
    }

    /// Ends this node's flight for `key`: `first` to the request that asked first, `waiters`
    /// (the same unless given) to its resends.
    private func finish(_ key: String, first: HTTPResponse, waiters: HTTPResponse? = nil) {
        guard let flight = local.withLock({ $0.flights.removeValue(forKey: key) }) else { return }
        flight.first.send(first)
        for waiter in flight.waiters { waiter.send(waiters ?? first) }
    }
}
