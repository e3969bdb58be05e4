import TandemCore

/// The errors of the core (TandemCore) and of the pasteboards as the contract names them: a
/// failure deep in an operation reaches the client with a code and a status, never as a crash.
extension APIError {
    // MARK: Operations

    /// Core's validation errors are semantic: the JSON was fine, the operation does not fit (422).
    static func operation(_ error: OperationError) -> APIError {
        switch error {
        case .lengthMismatch:
            .unprocessable(error.description, code: "length_mismatch")
        case .positionOutOfRange:
            .unprocessable(error.description, code: "position_out_of_range")
        case .splitsSurrogatePair:
            .unprocessable(error.description, code: "splits_surrogate_pair")
        case .invalidComponent:
            .unprocessable(error.description, code: "invalid_operation")
        }
    }

    // MARK: Editing actions

    /// The answer to an editing action whose target `EditingTarget` refused; `selecting` for
    /// select, whose missing selection is a missing caret.
    init(_ error: EditingTargetError, selecting: Bool = false) {
        switch error {
        case .positionOutOfRange(let p, let length):
            self = .unprocessable("position \(p) is outside the document (length \(length))", code: "position_out_of_range")
        case .splitsSurrogatePair(let p):
            self = .unprocessable("position \(p) splits a surrogate pair", code: "splits_surrogate_pair")
        case .emptyRange(let r):
            self = .unprocessable("the range \(r.lowerBound)...\(r.upperBound) is empty", code: "empty_range")
        case .sessionRequired:
            self = .sessionRequired("acting on the selection (or give {\"from\",\"to\"})")
        case .noSelection where selecting:
            self = .conflict("no_selection", "the session has no caret to select a word around: give {\"from\",\"to\"}")
        case .noSelection:
            self = .conflict("no_selection", "the session has no selection in this document: PUT …/selection first, or give {\"from\",\"to\"}")
        case .emptySelection:
            self = .conflict("empty_selection", "the selection is empty")
        case .noText:
            self = .conflict("no_text", "the document is empty: there is nothing to select")
        }
    }

    // MARK: Documents

    static func document(_ error: DocumentError) -> APIError {
        switch error {
        case .invalidOperation(let e): .operation(e)
        case .revisionTrimmed: APIError(.gone, "revision_trimmed", "\(error)")
        case .revisionInFuture: .unprocessable("\(error)", code: "revision_in_future")
        case .rebaseTooLarge, .undoTooLarge: .unprocessable(error.message, code: error.code)
        case .nothingToUndo: .conflict("nothing_to_undo", "there is nothing to undo")
        case .nothingToRedo: .conflict("nothing_to_redo", "there is nothing to redo")
        case .noOpenGroup: .conflict("group_not_open", "no undo group is open")
        case .groupOpen: .conflict("group_open", error.message)
        case .editingDisabled: APIError(.forbidden, "editing_disabled", "editing is disabled for this document")
        case .undoRegistrationNotDisabled, .groupAlreadyUndone: .conflict(error.code, error.message)
        case .notYourGroup: APIError(.forbidden, error.code, error.message)
        case .groupNotFound: APIError(.notFound, error.code, error.message)
        }
    }

    // MARK: Pasteboards

    static func pasteboard(_ error: PasteboardError) -> APIError {
        switch error {
        case .tooLarge(let what): APIError(.payloadTooLarge, "pasteboard_too_large", what)
        case .invalidType: .badRequest(error.description, code: "invalid_type")
        case .emptyItem: .unprocessable(error.description, code: "empty_item")
        case .duplicateType: .unprocessable(error.description, code: "duplicate_type")
        }
    }
}
