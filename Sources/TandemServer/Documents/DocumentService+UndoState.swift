import TandemCore
import TandemHTTP
import TandemStore

extension DocumentService {
    /// The path of a change to the undo state alone (a group opened or closed, an action
    /// named, levels capped, a history cleared): steps 1–5 of `DocumentService` without a new
    /// revision. `body` changes memory under the lock; the journal events it caused are
    /// submitted before the lock is released; `published` runs once they are stored (announce
    /// it), then the caller is answered. While the store fails nothing changes (503); if the
    /// store refuses the write, the document goes back to what the store holds.
    func commitUndoState<Result: Sendable>(
        _ handle: DocumentHandle,
        completion: @escaping Completion<Result>,
        published: @escaping @Sendable (Result) -> Void = { _ in },
        _ body: @escaping @Sendable (inout DocumentState) throws(APIError) -> Result
    ) {
        if let cluster {
            sequence(cluster, handle, fail: { completion(.failure($0)) }) { [self] st in
                if st.deleted { return .answer { completion(.failure(.notFound("document '\(handle.id)'"))) } }
                if st.savingError { return .answer { completion(.failure(.storageFailing)) } }
                let result: Result
                do throws(APIError) { result = try body(&st) } catch { return .answer { completion(.failure(error)) } }
                let writes = pendingJournalWrite(st, id: handle.id).map { [$0] } ?? []
                return .store(PreparedUnit(writes: writes) { [self] stored in
                    switch stored {
                    case .success:
                        published(result)
                        completion(.success(result))
                    case .failure(let error):
                        logger.error("could not store undo state of \(handle.id): \(error)")
                        storeFailed(handle, error: error)
                        completion(.failure(.storageFailing))
                    }
                })
            }
            return
        }
        let submitted: Swift.Result<(Result, StoreTicket?), APIError> = handle.state.withLock { st in
            if st.deleted { return .failure(.notFound("document '\(handle.id)'")) }
            if st.savingError { return .failure(.storageFailing) }
            do throws(APIError) {
                let result = try body(&st)
                return .success((result, submitPendingJournal(st, id: handle.id)))
            } catch {
                return .failure(error)
            }
        }
        switch submitted {
        case .failure(let error):
            completion(.failure(error))
        case .success(let (result, ticket)):
            whenPendingStored(handle, ticket) { stored in
                switch stored {
                case .success:
                    published(result)
                    completion(.success(result))
                case .failure(let error):
                    completion(.failure(error))
                }
            }
        }
    }
}
