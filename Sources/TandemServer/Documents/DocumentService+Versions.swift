import TandemCore
import TandemStore

extension DocumentService {
    /// Every saved version of the document, oldest first.
    func versions(of handle: DocumentHandle) throws(APIError) -> [StoredVersion] {
        do { return try store.versions(document: handle.id) } catch { throw .storageFailing }
    }

    /// Version `n` of the document, as stored.
    func version(_ n: Int, of handle: DocumentHandle) throws(APIError) -> StoredVersion {
        let v: StoredVersion?
        do { v = try store.version(document: handle.id, number: n) } catch { throw .storageFailing }
        guard let v else { throw .notFound("version \(n) of '\(handle.id)'") }
        return v
    }

    /// Writes the committed text as the next version and, if nothing changed meanwhile,
    /// clears the change count, both in one unit: answered once both are stored; refused,
    /// the count goes back to what the store holds (`storeFailed`) and no version exists.
    /// The document's lock is held to read, clear and submit, never while waiting; `then`
    /// gets the version once stored (on the store's writer thread), and no thread waits.
    func save(_ handle: DocumentHandle, name: String?, then: @escaping Completion<StoredVersion>) {
        if replication.shared { return saveSequenced(handle, name: name, then: then) }
        handle.checkpoints.run { [self] done in
            let finish: @Sendable (Result<StoredVersion, APIError>) -> Void = { result in
                done()
                then(result)
            }
            guard let newest = handle.newestVersion.withLock({ $0 }) else {
                // The first save since loading reads the newest number from the store: on the
                // pool, as every version read, never on the loop that took the request.
                heavyWork.async(lane: handle.id) { [self] in
                    let number: Int
                    do { number = (try store.versions(document: handle.id).last?.number ?? 0) + 1 } catch { return finish(.failure(.storageFailing)) }
                    saveNumbered(handle, number: number, name: name, then: finish)
                }
                return
            }
            saveNumbered(handle, number: newest + 1, name: name, then: finish)
        }
    }

    /// `save` once the version's number is known (inside the document's `checkpoints` job).
    private func saveNumbered(_ handle: DocumentHandle, number: Int, name: String?,
                              then finish: @escaping @Sendable (Result<StoredVersion, APIError>) -> Void) {
        let submitted: (StoredVersion, Bool, StoreTicket, Rope)
        do throws(APIError) {
            submitted = try submitVersion(handle, number: number, name: name)
        } catch {
            return finish(.failure(error))
        }
        let (v, cleared, ticket, savedRope) = submitted
        whenStored(ticket, of: handle, journaled: cleared, doing: "save a version of") { [self] result in
            if case .failure(let error) = result { return finish(.failure(error)) }
            handle.newestVersion.withLock { $0 = number }
            versionStored(v, text: savedRope, cleared: cleared, in: handle)
            finish(.success(v))
        }
    }

    /// In a cluster: numbered, written and the count cleared in a sequenced unit, under the
    /// document's head lock, so two nodes saving at once take consecutive numbers, and the
    /// cleared count is in the journal every node replays.
    private func saveSequenced(_ handle: DocumentHandle, name: String?, then: @escaping Completion<StoredVersion>) {
        let delivery = delivery()
        replication.order(handle, numbersVersion: true, fail: { then(.failure($0)) }) { [self] st in
            if st.deleted { return .answer { then(.failure(.notFound("document '\(handle.id)'"))) } }
            if st.savingError { return .answer { then(.failure(.storageFailing)) } }
            // Taken at once: another save in the same unit takes the next.
            let number = handle.newestVersion.withLock { n in
                n = (n ?? 0) + 1
                return n!
            }
            let (v, rope, cleared, writes) = versionWrites(&st, of: handle, number: number, name: name)
            return .store(PreparedUnit(writes: writes, stored: delivery.completion { [self] stored in
                if case .failure(let error) = stored {
                    logger.error("could not save a version of document \(handle.id): \(error)")
                    if cleared { storeFailed(handle, error: error) }
                    return then(.failure(.storageFailing))
                }
                versionStored(v, text: rope, cleared: cleared, in: handle)
                then(.success(v))
            }))
        }
    }

    /// Under the document's lock: the committed text as version `number`, and the change
    /// count cleared with it when nothing is in flight, submitted as one unit.
    private func submitVersion(_ handle: DocumentHandle, number: Int, name: String?) throws(APIError) -> (StoredVersion, Bool, StoreTicket, Rope) {
        try handle.executor.sync { st throws(APIError) -> (StoredVersion, Bool, StoreTicket, Rope) in
                if st.deleted { throw .notFound("document '\(handle.id)'") }
                if st.savingError { throw .storageFailing }
                let (v, rope, cleared, writes) = versionWrites(&st, of: handle, number: number, name: name)
                let ticket = StoreTicket()
                store.submit(writes, delivery: delivery()) { ticket.finish($0) }
                return (v, cleared, ticket, rope)
        }
    }

    /// Under the document's lock: the committed text as version `number`, with the change
    /// count cleared when nothing is in flight (a change still waiting for its commit is not
    /// in the version: it stays unsaved), and the unit that stores both.
    private func versionWrites(_ st: inout DocumentState, of handle: DocumentHandle, number: Int, name: String?)
        -> (StoredVersion, text: Rope, cleared: Bool, writes: [StoreWrite]) {
        let rope = st.committedRope
        let v = StoredVersion(documentID: handle.id, number: number, revision: st.committedRevision,
                              time: now(), text: rope.description, name: name)
        var writes: [StoreWrite] = [.addVersion(v)]
        let cleared = st.document.revision == v.revision
        if cleared {
            st.document.updateChangeCount(.cleared)
            if let journal = pendingJournalWrite(st, id: handle.id) { writes.append(journal) }
        }
        return (v, rope, cleared, writes)
    }

    /// A version is stored: it is the saved text from now on, and every window hears of it.
    private func versionStored(_ v: StoredVersion, text: Rope, cleared: Bool, in handle: DocumentHandle) {
        handle.executor.sync { st in
            guard !st.deleted else { return }
            (st.savedRope, st.savedRevision) = (text, v.revision)
            st.lastSaved = v.time
            if cleared { st.lastSavedRevision = max(st.lastSavedRevision, v.revision) }
            handle.events.send(ServerSentEvents.frame(id: st.committedRevision, event: "saved", data: DocumentJSON.version(v)))
        }
    }

    /// The saveless model: a document with unsaved changes saves itself once it has been
    /// quiet for a moment, and at least every 30 s while someone keeps typing.
    func autosave(now: Double) {
        for handle in documents.withLock({ Array($0.values) }) {
            let due = handle.executor.sync { st -> Bool in
                guard st.hasUnsavedChanges, !st.savingError, st.lastChangeLocal, st.committedRevision == st.document.revision else { return false }
                let quietFor = now - st.modified
                let sinceSave = now - (st.lastSaved ?? st.created)
                return quietFor >= 2 || sinceSave >= 30
            }
            guard due, handle.autosaving.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { continue }
            save(handle, name: nil) { _ in handle.autosaving.store(false, ordering: .releasing) }
        }
    }
}
