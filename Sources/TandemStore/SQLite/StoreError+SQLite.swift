import GRDB

extension StoreError {
    /// Maps whatever GRDB or a job threw to a `StoreError`.
    init(_ error: any Error) {
        if let error = error as? StoreError {
            self = error
            return
        }
        guard let error = error as? DatabaseError else {
            self = .io(String(describing: error))
            return
        }
        switch error.resultCode {
        case .SQLITE_FULL: self = .full
        case .SQLITE_READONLY: self = .readOnly
        case .SQLITE_CONSTRAINT: self = .conflict(error.message ?? "constraint failed")
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: self = .corrupt(error.message ?? "database is damaged")
        default: self = .io(error.description)
        }
    }
}
