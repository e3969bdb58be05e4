import TandemCore
import TandemStore

extension ClusterSync {
    /// `DocumentService.save` in a cluster: numbered, written and the count cleared in a
    /// sequenced unit, under the document's head lock, so two nodes saving at once take
    /// consecutive numbers, and the cleared count is in the journal every node replays.
    func saveVersion(_ handle: DocumentHandle, name: String?, then: @escaping DocumentService.Completion<StoredVersion>) {
        let delivery = delivery()
        replication.order(handle, numbersVersion: true, fail: { then(.failure($0)) }) { [self] st in
            if st.deleted { let gone = st.goneError(handle.id); return .answer { then(.failure(gone)) } }
            if st.savingError { return .answer { then(.failure(.storageFailing)) } }
            // Taken at once: another save in the same unit takes the next.
            let number = handle.newestVersion.withLock { n in
                n = (n ?? 0) + 1
                return n!
            }
            let (v, rope, cleared, writes) = persistence.versionWrites(&st, of: handle, number: number, name: name)
            return .store(PreparedUnit(writes: writes, stored: delivery.completion { [self] stored in
                if case .failure(let error) = stored {
                    logger.error("could not save a version of document \(handle.id): \(error)")
                    if cleared { persistence.storeFailed(handle, error: error) }
                    return then(.failure(.storageFailing))
                }
                persistence.versionStored(v, text: rope, cleared: cleared, in: handle)
                then(.success(v))
            }))
        }
    }
}
