import Synchronization
import TandemCore

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
                if st.deleted { throw .notFound("document '\(handle.id)'") }
                if st.secure { throw Self.secureDocument }
                let range = try target(st, action, session: session, needsText: true)
                return (st.document.rope.substring(range), session.flatMap { st.document.selection(for: $0.id) })
            }
        } catch {
            return completion(.failure(error))
        }
        pasteboards.write(action.pasteboard, by: session?.pasteboardReader ?? PasteboardReader(), publish: publishPasteboard, { p, limits throws(PasteboardError) in
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
            commitChange(handle, companion: { [self] in
                staged.withLock { $0 }.map { s in ChangeCompanion(writes: s.writes) { [self] in pasteboards.install(s, publish: publishPasteboard) } }
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
        commitChange(handle, completion: completion) { [self] st throws(APIError) in
            let range = try target(st, action, session: session, needsText: true)
            return try applyAction(&st, op: Self.deletion(range, st), actionName: "Delete", session: session, pasteboard: nil)
        }
    }

    /// `paste:`: the pasteboard's first item (as `type`, else plain text) in place of the
    /// range or selection, as its own undo group.
    func paste(_ action: ActionRequest, in handle: DocumentHandle, by session: Session?, completion: @escaping Completion<ActionResult>) {
        commitChange(handle, completion: completion) { [self] st throws(APIError) in
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
            if st.deleted { throw .notFound("document '\(handle.id)'") }
            let selection: Selection
            do throws(EditingTargetError) {
                selection = try EditingTarget.selection(all: all, explicit: range, session: session.id, in: st.document)
            } catch { throw APIError(error, selecting: true) }
            do throws(DocumentError) { try st.document.setSelection(selection, for: session.id) } catch { throw .document(error) }
            return (st.document.revision, selection)
        }
        broadcastPresence(handle)
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
