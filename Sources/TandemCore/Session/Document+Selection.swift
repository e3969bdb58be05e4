// MARK: - Selections

extension Document {
    /// Sets a session's selection; it must lie within the text and not split a surrogate pair.
    public func setSelection(_ selection: Selection, for session: SessionID) throws(DocumentError) {
        for offset in [selection.anchor, selection.head] {
            guard offset >= 0, offset <= length else {
                throw .invalidOperation(.positionOutOfRange(position: offset, length: length))
            }
            guard rope.isCharacterBoundary(offset) else { throw .invalidOperation(.splitsSurrogatePair(at: offset)) }
        }
        setSelectionUnchecked(selection, for: session)
    }

    /// Sets a selection made on the text at `base`, kept in place through every change since,
    /// as an edit's base is: a client reports its caret without first catching up with changes
    /// that are still on their way to it.
    public func setSelection(_ selection: Selection, base: Int, for session: SessionID) throws(DocumentError) {
        let baseLength = try length(atRevision: base)
        for offset in [selection.anchor, selection.head] where offset < 0 || offset > baseLength {
            throw .invalidOperation(.positionOutOfRange(position: offset, length: baseLength))
        }
        var mapped = selection
        if base < revision {
            for r in (base + 1)...revision {
                mapped = Selection(anchor: mapPosition(mapped.anchor, r), head: mapPosition(mapped.head, r))
            }
        }
        try setSelection(mapped, for: session)
    }

    func setSelectionUnchecked(_ selection: Selection, for session: SessionID) {
        if let i = selectionIndex[session] {
            selectionList[i] = selection
        } else {
            selectionIndex[session] = selectionList.count
            selectionSessions.append(session)
            selectionList.append(selection)
        }
    }

    public func selection(for session: SessionID) -> Selection? { selectionIndex[session].map { selectionList[$0] } }

    public var selections: [SessionID: Selection] {
        Dictionary(uniqueKeysWithValues: zip(selectionSessions, selectionList))
    }

    public func removeSelection(for session: SessionID) {
        guard let i = selectionIndex.removeValue(forKey: session) else { return }
        selectionSessions.remove(at: i)
        selectionList.remove(at: i)
        for k in i..<selectionSessions.count { selectionIndex[selectionSessions[k]] = k }
    }

    /// Keeps every selection in place through a change; `owner` gets `landing` instead.
    func mapSelections(through revision: Int, owner: SessionID?, landing: Selection?) {
        let ownerIndex = owner.flatMap { selectionIndex[$0] }
        if selectionList.count > (ownerIndex == nil ? 0 : 1) {
            // A keystroke is one splice: every other session's caret then moves by arithmetic
            // alone (mapPosition's rule for one splice), without walking the log per position.
            let one = log.singleSplice(at: revision)
            func map(_ x: Int) -> Int {
                guard let (p, d, n) = one else { return mapPosition(x, revision) }
                return x < p ? x : x <= p + d ? p + n : x + n - d
            }
            for i in selectionList.indices where i != ownerIndex {
                let s = selectionList[i]
                selectionList[i] = Selection(anchor: map(s.anchor), head: map(s.head))
            }
        }
        if let landing {
            if let ownerIndex { selectionList[ownerIndex] = landing } else if let owner { setSelectionUnchecked(landing, for: owner) }
        }
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

// MARK: - The word around a position

extension Document {
    /// The word around `position`, looked for within `reach` code units either side (a
    /// longer word is cut there), so a select in a large document reads only a window.
    public func wordRange(around position: Int, reach: Int = 4096) -> Range<Int>? {
        guard position >= 0, position <= length else { return nil }
        var lo = max(0, position - reach), hi = min(length, position + reach)
        // Never start or end the window inside a surrogate pair.
        if !rope.isCharacterBoundary(lo) { lo += 1 }
        if !rope.isCharacterBoundary(hi) { hi -= 1 }
        let window = rope.substring(lo..<hi)
        return WordRange.around(position - lo, in: Substring(window)).map { ($0.lowerBound + lo)..<($0.upperBound + lo) }
    }
}
