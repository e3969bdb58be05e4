extension Document {
    /// Sets a session's selection; it must lie within the text and not split a surrogate pair.
    public func setSelection(_ selection: Selection, for session: SessionID) throws(DocumentError) {
        for offset in [selection.anchor, selection.head] {
            guard offset >= 0, offset <= length else {
                throw .invalidOperation(.positionOutOfRange(position: offset, length: length))
            }
            guard rope.isCharacterBoundary(offset) else { throw .invalidOperation(.splitsSurrogatePair(at: offset)) }
        }
        selectionStore[session] = selection
    }

    public func selection(for session: SessionID) -> Selection? { selectionStore[session] }

    public var selections: [SessionID: Selection] { selectionStore }

    public func removeSelection(for session: SessionID) { selectionStore[session] = nil }

    /// Keeps every selection in place through a change; `owner` gets `landing` instead.
    func mapSelections(through revision: Int, owner: SessionID?, landing: Selection?) {
        guard !selectionStore.isEmpty else {
            if let owner, let landing { selectionStore[owner] = landing }
            return
        }
        for (session, selection) in selectionStore where session != owner {
            selectionStore[session] = Selection(anchor: mapPosition(selection.anchor, revision),
                                                head: mapPosition(selection.head, revision))
        }
        if let owner, let landing { selectionStore[owner] = landing }
    }

    /// As TextOperation.transformPosition, on the logged splices (no allocation).
    private func mapPosition(_ position: Int, _ revision: Int) -> Int {
        var delta = 0
        var result: Int?
        log.forEachSplice(revision) { p, d, n, _ in
            guard result == nil, position >= p else { return }
            if position <= p + d { result = p + delta + n } else { delta += n - d }
        }
        return result ?? position + delta
    }
}
