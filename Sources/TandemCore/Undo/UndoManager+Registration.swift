// MARK: - Registration per session

/// NSUndoManager's disableUndoRegistration has one count for the whole manager (here
/// `disableUndoRegistration()`, the document's). A shared document also lets one session
/// stop registering its own edits without touching anyone else's: each context has a count
/// of its own, nesting as NSUndoManager's does.
extension UndoManager {
    /// Whether a change in `scope` would be registered: the document's registration is on
    /// and, for a session, its own too.
    public func isUndoRegistrationEnabled(_ scope: UndoScope) -> Bool {
        registrationDisabledLevel(scope) == 0
    }

    /// How many disables are unmatched for `scope`: the document's count, plus a session's
    /// own for a session scope.
    public func registrationDisabledLevel(_ scope: UndoScope) -> Int {
        switch scope {
        case .document: registrationDisabled
        case .session(let s): registrationDisabled + (contextIndex[s].map { contexts[$0].registrationDisabled } ?? 0)
        }
    }

    /// The session's own count alone (0 without a context).
    public func sessionRegistrationDisabledLevel(_ session: SessionID) -> Int {
        contextIndex[session].map { contexts[$0].registrationDisabled } ?? 0
    }

    /// Whether context c's changes are registered now.
    func registers(context c: Int) -> Bool { registrationDisabled == 0 && contexts[c].registrationDisabled == 0 }

    /// disableUndoRegistration for `session`'s edits alone (nestable); returns its own count.
    @discardableResult
    public func disableUndoRegistration(session: SessionID) -> Int {
        let c = context(for: session)
        contexts[c].registrationDisabled += 1
        // A typing run must not go on across the disabled stretch.
        contexts[c].typing = nil
        log.journal?(.disableSessionUndoRegistration(session))
        return contexts[c].registrationDisabled
    }

    /// Undoes one `disableUndoRegistration(session:)`; `undoRegistrationNotDisabled` without
    /// a matching one, where NSUndoManager raises. Returns the session's own count after it.
    @discardableResult
    public func enableUndoRegistration(session: SessionID) throws(DocumentError) -> Int {
        guard let c = contextIndex[session], contexts[c].registrationDisabled > 0 else { throw .undoRegistrationNotDisabled }
        contexts[c].registrationDisabled -= 1
        log.journal?(.enableSessionUndoRegistration(session))
        return contexts[c].registrationDisabled
    }
}
