import TandemCore

/// A whole new text for a document (`PUT …/text`, a revert to a version): applied as the
/// smallest change that turns the current text into it, its own undo group.
struct TextReplacement: Sendable {
    var text: String
    var actionName: String
    /// The caller's precondition on the current revision's entity tag (an `If-Match` header,
    /// checked as the edge reads it); nil for any.
    var ifMatch: (@Sendable (_ etag: String) -> Bool)?
    /// The `If-Match` the caller sent, for the 412's message.
    var ifMatchText = ""
}

extension DocumentService {
    /// Splice steps of a stale edit's transform done on the event loop, under the document's
    /// lock (a keystroke a few hundred changes behind); more goes to `rebaseThenApply`.
    static let inlineRebaseWork = 20_000

    /// `POST …/edits`: the edit, transformed through every change since its `base`.
    func edit(_ edit: EditRequest, in handle: DocumentHandle, by session: Session?, completion: @escaping Completion<EditResult>) {
        let work: Int
        if let base = edit.base {
            let changes = handle.revisionHint.load(ordering: .relaxed) - base
            let steps = (edit.form.spliceCount + 1).multipliedReportingOverflow(by: max(changes, 0))
            if steps.overflow || steps.partialValue > Self.inlineRebaseWork {
                return rebaseOffTheLoop(edit, base: base, handle: handle, session: session, completion: completion)
            }
            work = steps.partialValue
        } else {
            work = 0
        }
        commitChange(handle, completion: { [self] (result: Swift.Result<EditResult, APIError>) in
            // The logged splices were counted in the executor (below): too many, and the edit
            // changed nothing there; it goes to the pool instead.
            if case .failure(let error) = result, error == Self.rebaseTooHeavyInline, let base = edit.base {
                return rebaseOffTheLoop(edit, base: base, handle: handle, session: session, completion: completion)
            }
            completion(result)
        }) { [self] st throws(APIError) in
            let length: Int
            if let base = edit.base {
                // The transform also steps through every splice of those changes: one paste of
                // 100k splices is as heavy as 100k keystrokes. Counted in O(1), in the executor
                // the edit is in anyway (entering it twice would be paid per keystroke).
                if work + st.document.loggedSplices(since: base) > Self.inlineRebaseWork { throw Self.rebaseTooHeavyInline }
                length = try lengthAt(base, in: st.document)
            } else {
                length = st.document.length
            }
            let op = try edit.build(length)
            return try apply(&st, op: op, base: edit.base, session: session, options: edit.options)
        }
    }

    /// Never answered: `edit` turns it into `rebaseOffTheLoop`.
    private static let rebaseTooHeavyInline = APIError(.internalServerError, "rebase_too_heavy_inline", "a stale edit's transform goes to the pool")

    private func rebaseOffTheLoop(_ edit: EditRequest, base: Int, handle: DocumentHandle, session: Session?,
                                  completion: @escaping Completion<EditResult>) {
        heavyWork.async(lane: handle.id) { [self] in rebaseThenApply(edit, base: base, handle: handle, session: session, completion: completion) }
    }

    /// A stale edit whose transform is heavy: transformed on `heavyWork` against a copy of
    /// the log, with the document's executor free meanwhile, then applied in the executor with
    /// only the changes made since the copy left to pass through.
    private func rebaseThenApply(_ edit: EditRequest, base: Int, handle: DocumentHandle, session: Session?, completion: @escaping Completion<EditResult>) {
        let op: TextOperation, revision: Int
        do throws(APIError) {
            var source: Document.RebaseSource? = handle.executor.sync { $0.document.rebaseSource() }
            let length: Int
            do throws(DocumentError) { length = try source!.length(atRevision: base) } catch { throw .document(error) }
            let built = try edit.build(length)
            do throws(DocumentError) { op = try Document.rebase(built, base: base, source: source!) } catch { throw .document(error) }
            revision = source!.revision
            // Let go of the copy before the document changes again, or that change would copy the log.
            source = nil
        } catch {
            return completion(.failure(error))
        }
        commitChange(handle, completion: completion) { [self] st throws(APIError) in
            try apply(&st, op: op, base: revision, session: session, options: edit.options)
        }
    }

    /// `PUT …/text` and a revert to a version: the whole text replaced, as one undo group.
    func replaceText(_ replacement: TextReplacement, in handle: DocumentHandle, by session: Session?, completion: @escaping Completion<EditResult>) {
        commitChange(handle, completion: completion) { [self] st throws(APIError) in
            let etag = "\"\(st.document.revision)\""
            if let matches = replacement.ifMatch, !matches(etag) {
                throw APIError(.preconditionFailed, "precondition_failed", "the document is at \(etag), not \(replacement.ifMatchText)")
            }
            let op: TextOperation
            do throws(OperationError) { op = try TextDiff.replacement(from: st.document.text, to: replacement.text) } catch { throw .operation(error) }
            return try apply(&st, op: op, base: nil, session: session,
                             options: EditOptions(actionName: replacement.actionName, undoable: true, newGroup: true))
        }
    }

    /// `PUT …/selection`: the session's selection, given now or at revision `base` (then
    /// mapped through what happened since), told to everyone watching.
    func setSelection(_ selection: Selection, base: Int?, in handle: DocumentHandle, by session: Session) throws(APIError) -> Selection {
        let result = try handle.executor.sync { st throws(APIError) -> Selection in
            if base == nil {
                do throws(EditingTargetError) {
                    try EditingTarget.check(selection.anchor, in: st.document)
                    try EditingTarget.check(selection.head, in: st.document)
                } catch { throw APIError(error) }
            }
            do throws(DocumentError) {
                if let base {
                    try st.document.setSelection(selection, base: base, for: session.id)
                } else {
                    try st.document.setSelection(selection, for: session.id)
                }
            } catch {
                throw .document(error)
            }
            return st.document.selection(for: session.id) ?? selection
        }
        broadcastPresence(handle)
        return result
    }

    /// The document's length at an older revision.
    func lengthAt(_ base: Int, in document: Document) throws(APIError) -> Int {
        do throws(DocumentError) {
            return try document.length(atRevision: base)
        } catch {
            throw .document(error)
        }
    }

    /// Applies an operation in the executor, as the caller's change.
    func apply(_ st: inout DocumentState, op: TextOperation, base: Int?, session: Session?, options: EditOptions) throws(APIError) -> ChangeOutcome<EditResult> {
        let change: Change?
        do throws(DocumentError) {
            change = try st.document.apply(op, base: base, session: session?.id, options: options, time: now())
        } catch {
            throw APIError.document(error)
        }
        let result = EditResult(revision: change?.revision ?? st.document.revision, operation: change?.operation,
                                selection: session.flatMap { st.document.selection(for: $0.id) })
        guard let change else { return .unchanged(result) }
        return .changed(change, result, notification: "checkpoint")
    }
}
