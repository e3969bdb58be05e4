import TandemCore
import TandemStore

extension ClusterSync {
    /// `DocumentService.save` in a cluster: numbered, written and the count cleared in a
    /// sequenced unit, under the document's head lock, so two nodes saving at once take
    /// consecutive numbers, and the cleared count is in the journal every node replays.
    func saveVersion(_ handle: DocumentHandle, _ request: SaveRequest, then: @escaping DocumentService.Completion<StoredVersion>) {
        let delivery = delivery()
        replication.order(handle, numbersVersion: true, fail: { then(.failure($0)) }) { [self] st in
            if st.deleted { let gone = st.goneError(handle.id); return .answer { then(.failure(gone)) } }
            if st.savingError { return .answer { then(.failure(.storageFailing)) } }
            // Taken at once: another save in the same unit comes after this one.
            let write: VersionWrite
            do throws(APIError) {
                write = try handle.versions.withLock { ledger throws(APIError) -> VersionWrite in
                    var known = ledger ?? VersionLedger()
                    let write = try persistence.versionWrites(&st, of: handle, request, after: known)
                    write.applied(to: &known)
                    ledger = known
                    return write
                }
            } catch {
                return .answer { then(.failure(error)) }
            }
            return .store(PreparedUnit(writes: write.writes, stored: delivery.completion { [self] stored in
                if case .failure(let error) = stored {
                    logger.error("could not save a version of document \(handle.id): \(error)")
                    if write.cleared { persistence.storeFailed(handle, error: error) }
                    return then(.failure(.storageFailing))
                }
                persistence.versionStored(write, in: handle)
                then(.success(write.version))
            }))
        }
    }
}
