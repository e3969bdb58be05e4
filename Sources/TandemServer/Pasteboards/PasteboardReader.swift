import TandemCore

/// Who asks for a pasteboard: a person (a user, or a guest session, which is a person of its
/// own) and whether with the operator's key. A person reads and writes their own `general` and
/// pasteboards, and those shared with everyone or with them; the operator reads every named
/// one, never someone's `general`.
struct PasteboardReader: Sendable {
    var person: String?
    var isOperator = false

    func mayRead(_ p: Pasteboard) -> Bool {
        if p.isGeneral { return person != nil && p.owner == person }
        guard let person else { return isOperator || p.sharedWithEveryone }
        return isOperator || p.sharedWithEveryone || p.owner == person || p.sharedWith.contains(person)
    }

    /// Changing and removing a pasteboard (not its items): its owner's, or anyone's once it
    /// is nobody's (an ended guest session's shared one).
    func mayManage(_ p: Pasteboard) -> Bool {
        p.owner == nil ? p.sharedWithEveryone : p.owner == person
    }
}

extension Session {
    var pasteboardReader: PasteboardReader { PasteboardReader(person: person) }
}

extension Caller {
    var pasteboardReader: PasteboardReader { PasteboardReader(person: session?.person, isOperator: isOperator) }
}
