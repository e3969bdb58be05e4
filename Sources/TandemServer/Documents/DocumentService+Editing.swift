import Synchronization
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
        pipeline.commitChange(handle, completion: { [self] (result: Swift.Result<EditResult, APIError>) in
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
        pipeline.commitChange(handle, completion: completion) { [self] st throws(APIError) in
            try apply(&st, op: op, base: revision, session: session, options: edit.options)
        }
    }

    /// `PUT …/text` and a revert to a version: the whole text replaced, as one undo group.
    func replaceText(_ replacement: TextReplacement, in handle: DocumentHandle, by session: Session?, completion: @escaping Completion<EditResult>) {
        pipeline.commitChange(handle, completion: completion) { [self] st throws(APIError) in
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
        events.broadcastPresence(handle)
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

/// An editing action's request (cut, copy, paste, delete, select), decoded.
struct ActionRequest: Sendable {
    /// `{"from","to"}`, checked as 0 <= from <= to; nil for the session's selection.
    var range: Range<Int>?
    var pasteboard: String
    /// The representation a paste takes (a UTI); nil for plain text.
    var type: String?
}

/// What a text-changing action did, as a text field would show it.
struct ActionResult: Sendable {
    var revision: Int
    var operation: TextOperation?
    var actionName: String
    /// The session's selection after it, or for an anonymous caller the caret it would get.
    var selection: Selection?
    /// The pasteboard a cut wrote, as written.
    var pasteboard: (name: String, changeCount: Int)?
}

/// What a copy did: the pasteboard as written, and the caller's selection (unchanged).
struct CopyResult: Sendable {
    var pasteboard: String
    var changeCount: Int
    var selection: Selection?
}

extension DocumentService {
    static let secureDocument = APIError(.forbidden, "secure_document", "the document is secure: its text is never copied to a pasteboard")

    /// `copy:`: the range's (or selection's) text onto the pasteboard. The text is read under
    /// the document's executor, the pasteboard written after leaving it (a pasteboard writer may
    /// take document locks, so none is queued under one), and answered once a persistent
    /// pasteboard is stored.
    func copy(_ action: ActionRequest, in handle: DocumentHandle, by session: Session?, completion: @escaping Completion<CopyResult>) {
        let text: String, selection: Selection?
        do throws(APIError) {
            (text, selection) = try handle.executor.sync { st throws(APIError) -> (String, Selection?) in
                if st.deleted { throw st.goneError(handle.id) }
                if st.secure { throw Self.secureDocument }
                let range = try target(st, action, session: session, needsText: true)
                return (st.document.rope.substring(range), session.flatMap { st.document.selection(for: $0.id) })
            }
        } catch {
            return completion(.failure(error))
        }
        pasteboards.write(action.pasteboard, by: session?.pasteboardReader ?? PasteboardReader(), publish: events.publishPasteboard, { p, limits throws(PasteboardError) in
            try p.setString(text, limits: limits)
        }, then: { result in
            completion(result.map { CopyResult(pasteboard: $0.name, changeCount: $0.changeCount, selection: selection) })
        })
    }

    /// `cut:`: one unit, the pasteboard stored with the deletion and shown once both
    /// committed; refused, neither happened. It runs as the pasteboard writer until it is
    /// answered, so what was staged is still what gets installed; no thread waits for it.
    func cut(_ action: ActionRequest, in handle: DocumentHandle, by session: Session?, completion: @escaping Completion<ActionResult>) {
        pasteboards.serially { [self] done in
            let staged = Mutex<PasteboardRegistry.Staged?>(nil)
            pipeline.commitChange(handle, companion: { [self] in
                staged.withLock { $0 }.map { s in ChangeCompanion(writes: s.writes) { [self] in pasteboards.install(s, publish: events.publishPasteboard) } }
            }, completion: { result in
                completion(result)
                done()
            }) { [self] st throws(APIError) in
                if st.secure { throw Self.secureDocument }
                let range = try target(st, action, session: session, needsText: true)
                let op = try Self.deletion(range, st)
                // Staged before the deletion: if the text cannot go onto the pasteboard, it stays.
                let text = st.document.rope.substring(range)
                let s = try pasteboards.stage(action.pasteboard, by: session?.pasteboardReader ?? PasteboardReader()) { p, limits throws(PasteboardError) in
                    try p.setString(text, limits: limits)
                }
                let outcome = try applyAction(&st, op: op, actionName: "Cut", session: session, pasteboard: s.pasteboard)
                staged.withLock { $0 = s }
                return outcome
            }
        }
    }

    /// `delete:`: the range (or the selection) removed, as its own undo group.
    func delete(_ action: ActionRequest, in handle: DocumentHandle, by session: Session?, completion: @escaping Completion<ActionResult>) {
        pipeline.commitChange(handle, completion: completion) { [self] st throws(APIError) in
            let range = try target(st, action, session: session, needsText: true)
            return try applyAction(&st, op: Self.deletion(range, st), actionName: "Delete", session: session, pasteboard: nil)
        }
    }

    /// `paste:`: the pasteboard's first item (as `type`, else plain text) in place of the
    /// range or selection, as its own undo group.
    func paste(_ action: ActionRequest, in handle: DocumentHandle, by session: Session?, completion: @escaping Completion<ActionResult>) {
        pipeline.commitChange(handle, completion: completion) { [self] st throws(APIError) in
            let range = try target(st, action, session: session, needsText: false)
            let p = try pasteboards.pasteboard(action.pasteboard, for: session?.pasteboardReader ?? PasteboardReader())
            guard let item = p.items.first else {
                throw .conflict("nothing_to_paste", "pasteboard '\(p.name)' is empty")
            }
            let rep: PasteboardRepresentation
            if let type = action.type {
                guard let r = item[type] else { throw .conflict("nothing_to_paste", "the first item of '\(p.name)' has no \(type)") }
                rep = r
            } else {
                guard let r = item.plainText else { throw .conflict("nothing_to_paste", "the first item of '\(p.name)' has no plain text") }
                rep = r
            }
            guard let text = rep.string else { throw .unprocessable("the \(rep.type) representation is not UTF-8 text", code: "not_text") }
            let op: TextOperation
            do throws(OperationError) {
                op = try TextOperation.replace(from: range.lowerBound, to: range.upperBound, with: text, length: st.document.length)
            } catch { throw .operation(error) }
            return try applyAction(&st, op: op, actionName: "Paste", session: session, pasteboard: nil)
        }
    }

    /// `selectAll:` (`all`), or `select:` (the word at the caret, or the given range): the
    /// session's new selection, told to everyone watching.
    func select(all: Bool, _ range: Range<Int>?, in handle: DocumentHandle, by session: Session) throws(APIError) -> (revision: Int, selection: Selection) {
        let result = try handle.executor.sync { st throws(APIError) -> (revision: Int, selection: Selection) in
            if st.deleted { throw st.goneError(handle.id) }
            let selection: Selection
            do throws(EditingTargetError) {
                selection = try EditingTarget.selection(all: all, explicit: range, session: session.id, in: st.document)
            } catch { throw APIError(error, selecting: true) }
            do throws(DocumentError) { try st.document.setSelection(selection, for: session.id) } catch { throw .document(error) }
            return (st.document.revision, selection)
        }
        events.broadcastPresence(handle)
        return result
    }

    /// The explicit range, else the session's selection (`EditingTarget.range`).
    func target(_ st: DocumentState, _ action: ActionRequest, session: Session?, needsText: Bool) throws(APIError) -> Range<Int> {
        do throws(EditingTargetError) {
            return try EditingTarget.range(explicit: action.range, session: session?.id, in: st.document, needsText: needsText)
        } catch { throw APIError(error) }
    }

    static func deletion(_ range: Range<Int>, _ st: DocumentState) throws(APIError) -> TextOperation {
        do throws(OperationError) {
            return try TextOperation.delete(from: range.lowerBound, to: range.upperBound, length: st.document.length)
        } catch { throw .operation(error) }
    }

    /// `apply` as its own undo group, with the selection a text field would leave.
    func applyAction(_ st: inout DocumentState, op: TextOperation, actionName: String, session: Session?, pasteboard: Pasteboard?) throws(APIError) -> ChangeOutcome<ActionResult> {
        let outcome = try apply(&st, op: op, base: nil, session: session, options: EditOptions(actionName: actionName, newGroup: true))
        var change: Change?
        if case .changed(let c, _, _, _) = outcome { change = c }
        var selection = session.flatMap { st.document.selection(for: $0.id) }
        if selection == nil, let r = change?.range { selection = Selection(caret: r.upperBound) }
        let result = ActionResult(revision: change?.revision ?? st.document.revision, operation: change?.operation, actionName: actionName,
                                  selection: selection, pasteboard: pasteboard.map { ($0.name, $0.changeCount) })
        guard let change else { return .unchanged(result) }
        return .changed(change, result, notification: "checkpoint")
    }
}
