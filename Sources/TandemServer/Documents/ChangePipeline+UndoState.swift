import Dispatch
import TandemCore
import TandemStore

extension ChangePipeline {
    /// The path of a change to the undo state alone (a group opened or closed, an action
    /// named, levels capped, a history cleared): steps 1–5 of `DocumentService` without a new
    /// revision. `body` changes memory in the document's executor; the journal events it caused are
    /// submitted from the executor; `published` runs once they are stored (announce it), then the
    /// caller is answered, both where `delivery` runs. While the store fails nothing changes (503); if the
    /// store refuses the write, the document goes back to what the store holds.
    func commitUndoState<Result: Sendable>(
        _ handle: DocumentHandle,
        completion: @escaping Completion<Result>,
        published: @escaping @Sendable (Result) -> Void = { _ in },
        _ body: @escaping @Sendable (inout DocumentState) throws(APIError) -> Result
    ) {
        let delivery = delivery()
        // The store's outcome is handled where `delivery` runs, never on the store's thread.
        let stored = { @Sendable [self] (result: Result, stored: Swift.Result<Void, StoreError>) in
            delivery { [self] in
                switch stored {
                case .success:
                    published(result)
                    completion(.success(result))
                case .failure(let error):
                    // Going back to what the store holds reads it: not on an event loop.
                    DispatchQueue.global().async { [self] in
                        logger.error("could not store undo state of \(handle.id): \(error)")
                        persistence.storeFailed(handle, error: error)
                        completion(.failure(.storageFailing))
                    }
                }
            }
        }
        replication.order(handle, fail: { completion(.failure($0)) }) { [self] st in
            if st.deleted { let gone = st.goneError(handle.id); return .answer { completion(.failure(gone)) } }
            if st.savingError { return .answer { completion(.failure(.storageFailing)) } }
            let result: Result
            do throws(APIError) { result = try body(&st) } catch { return .answer { completion(.failure(error)) } }
            guard let write = persistence.pendingJournalWrite(st, id: handle.id) else {
                return .answer {
                    published(result)
                    completion(.success(result))
                }
            }
            return .store(PreparedUnit(writes: [write]) { stored(result, $0) })
        }
    }
}
