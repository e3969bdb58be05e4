/// What UIResponderStandardEditActions act on, as rules apart from any transport: cut, copy,
/// delete and paste take an explicit range when one is given, else the session's selection;
/// select takes the whole text, a range, or the word around the session's caret.
public enum EditingTarget {
    /// Checks that `position` can bound a range or a selection in `document`: inside the
    /// text, and not between the two halves of a surrogate pair.
    public static func check(_ position: Int, in document: Document) throws(EditingTargetError) {
        guard position >= 0, position <= document.length else {
            throw .positionOutOfRange(position: position, length: document.length)
        }
        guard document.rope.isCharacterBoundary(position) else { throw .splitsSurrogatePair(at: position) }
    }

    /// The range cut, copy, delete or paste acts on in `document`: `explicit` when given, its
    /// ends checked as `check` does, else `session`'s selection. Where the action needs text
    /// (cut, copy, delete: `needsText`) the range must not be empty: an empty explicit range
    /// is `emptyRange`, an empty selection `emptySelection`. Without an explicit range, no
    /// session is `sessionRequired` and a session with no selection here `noSelection`.
    public static func range(explicit: Range<Int>?, session: SessionID?, in document: Document,
                             needsText: Bool) throws(EditingTargetError) -> Range<Int> {
        if let explicit {
            try check(explicit.lowerBound, in: document)
            try check(explicit.upperBound, in: document)
            if needsText && explicit.isEmpty { throw .emptyRange(explicit) }
            return explicit
        }
        guard let session else { throw .sessionRequired }
        guard let selection = document.selection(for: session) else { throw .noSelection }
        if needsText && selection.range.isEmpty { throw .emptySelection }
        return selection.range
    }

    /// The selection select (or, with `all`, selectAll) gives `session` in `document`: the
    /// whole text; else `explicit`, its ends checked as `check` does; else, from the session's
    /// selection, the word around its caret, or the selection as it is when it is not a caret
    /// or no word touches the caret. An empty text is `noText` (there is nothing to select),
    /// a session with no selection and no explicit range `noSelection`.
    public static func selection(all: Bool, explicit: Range<Int>?, session: SessionID,
                                 in document: Document) throws(EditingTargetError) -> Selection {
        guard document.length > 0 else { throw .noText }
        if all { return Selection(anchor: 0, head: document.length) }
        if let explicit {
            try check(explicit.lowerBound, in: document)
            try check(explicit.upperBound, in: document)
            return Selection(explicit)
        }
        guard let current = document.selection(for: session) else { throw .noSelection }
        if current.range.isEmpty, let word = document.wordRange(around: current.head) { return Selection(word) }
        return current
    }
}

/// Why `EditingTarget` found nothing to act on.
public enum EditingTargetError: Error, Equatable, Sendable {
    /// A position given is outside the text (`length` UTF-16 units).
    case positionOutOfRange(position: Int, length: Int)
    /// A position given falls between the two halves of a surrogate pair.
    case splitsSurrogatePair(at: Int)
    /// An explicit range with no text, where the action needs text.
    case emptyRange(Range<Int>)
    /// No explicit range, and no session whose selection could be the target.
    case sessionRequired
    /// No explicit range, and the session has no selection in the document.
    case noSelection
    /// The session's selection is a caret, where the action needs text.
    case emptySelection
    /// The document is empty: there is nothing to select.
    case noText
}

/// canPerformAction for the standard edit actions: which of them an edit menu offers a
/// session (or an anonymous caller) now.
public struct EditActionAvailability: Equatable, Sendable {
    public var cut: Bool
    public var copy: Bool
    public var paste: Bool
    public var delete: Bool
    public var select: Bool
    public var selectAll: Bool

    /// - Parameters:
    ///   - selection: the caller's selection in the document (nil without a session, or for
    ///     a session that has none there).
    ///   - range: the explicit `{"from","to"}` a request would give, already checked as
    ///     `EditingTarget.check` does; nil to ask about the selection, as a request without
    ///     one acts on it.
    ///   - hasSession: whether the caller is a session (select needs one to hold the result).
    ///   - acceptsChanges: whether the document takes changes now.
    ///   - secure: whether the document's text must never reach a pasteboard.
    ///   - hasText: whether the document has any text.
    ///   - pasteboardHasStrings: whether the pasteboard paste reads from holds text (in the
    ///     type paste would take).
    ///
    /// Each answers what the action's request with the same target would do: cut, copy and
    /// delete need a non-empty target; paste needs a target of any kind (a caret will do);
    /// cut, paste and delete need the document to take changes; cut and copy never work on
    /// a secure document; select and selectAll need a session and text, and select without
    /// a range needs a selection to start from. An anonymous caller has no selection, so
    /// only a range gives it a target (as the requests need one then).
    public init(selection: Selection?, range: Range<Int>? = nil, hasSession: Bool, acceptsChanges: Bool, secure: Bool,
                hasText: Bool, pasteboardHasStrings: Bool) {
        let target = range ?? selection?.range
        let hasTarget = target != nil
        let targetHasText = target.map { !$0.isEmpty } ?? false
        cut = targetHasText && acceptsChanges && !secure
        copy = targetHasText && !secure
        paste = hasTarget && acceptsChanges && pasteboardHasStrings
        delete = targetHasText && acceptsChanges
        select = hasSession && hasText && (range != nil || selection != nil)
        selectAll = hasSession && hasText
    }
}
