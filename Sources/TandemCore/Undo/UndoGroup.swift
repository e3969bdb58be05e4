/// One undo group: the changes one undo reverts. 24 bytes; the changes themselves stay in
/// the log, so a group whose changes are contiguous in the log derives its inverse from it.
struct UndoGroup: Codable, Sendable {
    static let discardable: UInt8 = 1
    static let live: UInt8 = 2
    /// Opened by an edit outside an explicit group (NSUndoManager's per-event group): its
    /// first change is announced with didOpenUndoGroup, willCloseUndoGroup and didCloseUndoGroup.
    static let automatic: UInt8 = 4

    /// The undo context (index into `UndoManager.contexts`) whose stacks hold it.
    var context: Int32
    /// Revision of its first and of its latest change.
    var first: Int32
    var last: Int32
    /// Interned action name, -1 for none.
    var name: Int32
    var flags: UInt8
    /// The id the API shows (`…/history`, `?group=`, `reverts`): the revision of the first
    /// change of the edit that made it. An undo's redo entry and a redo's undo entry keep the
    /// id of the group they revert, so it survives undo, redo and renumbering (`compactGroups`).
    var id: Int32

    init(context: Int32, first: Int32, last: Int32, name: Int32, flags: UInt8, id: Int32? = nil) {
        self.context = context
        self.first = first
        self.last = last
        self.name = name
        self.flags = flags
        self.id = id ?? first
    }

    var isLive: Bool { flags & Self.live != 0 }
}

/// The inverse of a group once it had to be mapped through changes that are not its own
/// (CodeMirror's lazy history mapping): valid on the text at `validAt`.
struct MappedInverse: Sendable {
    var inverse: TextOperation
    var validAt: Int
    /// The foreign changes made since the group began, rewritten to apply to the text as if
    /// the group were undone: the mapping the group below it needs once this one is popped.
    var below: TextOperation?
    /// UTF-16 units the inverse no longer reverts because later changes already deleted them
    /// (text the group inserted that others removed): what makes an undo `partial`.
    var lost = 0
    /// The identities of the units the inverse puts back, in order: an undo restores the
    /// characters the group deleted, not new ones (see `UnitRuns`).
    var inserted = UnitRuns()
    /// The identities of `below`'s units.
    var belowUnits: OperationUnits?
    /// The known identities among the `lost` units. When one of them comes back into the text
    /// (someone's undo of the delete that took it), the inverse takes it out again: the
    /// group's text is the group's, whoever deleted and restored it in between.
    var lostUnits = UnitRuns()
    /// Units of the group's effect this entry cannot revert because they were gone when it
    /// was made (the undo that made a redo entry could not take out text others had deleted).
    /// They travel to the entry the next undo or redo makes, which takes them out if they are
    /// back by then, or waits for them in `lostUnits`.
    var carried = UnitRuns()
}

/// Typing coalescing state of one undo context.
struct TypingRun: Codable, Sendable {
    var group: Int32
    var deleting: Bool
    /// The group's inserted text is start..<caret (start == caret for deletions).
    var start: Int
    var caret: Int
    var time: Double
    var revision: Int
}

/// One undo context: a session's (or the anonymous one's) undo and redo stacks.
struct UndoContext: Codable, Sendable {
    var session: SessionID?
    /// Group ids, oldest first; entries below `undoBottom` were dropped (levelsOfUndo).
    var undo: [Int32] = []
    var undoBottom = 0
    var redo: [Int32] = []
    var groupingLevel = 0
    var openGroup: Int32 = -1
    /// Name for the open explicit group, and whether it was set at the outermost level.
    var openName: Int32 = -1
    var openNamedOutside = false
    /// setActionIsDiscardable for the open explicit group, kept until it has a change.
    /// (Optionals here and below, so snapshots written before they existed still decode.)
    var openDiscardable: Bool?
    /// For each open nested level (2, 3, …): the revision of its first registered change,
    /// -1 while it has none.
    var nestedStarts: [Int32]?
    /// The open group's changes from this revision on are the last closed nested group,
    /// as long as nothing was registered since it closed (what undoNestedGroup undoes).
    var nestedTail: Int32?
    var levels = 0
    var typing: TypingRun?
    /// The session's own disableUndoRegistration nesting: while above 0 its edits register
    /// nothing. Reset when the session ends (removeAllActions(withTarget:)).
    var registrationDisabled = 0

    var undoCount: Int { undo.count - undoBottom }
    var undoTop: Int32? { undo.count > undoBottom ? undo[undo.count - 1] : nil }

    init(session: SessionID?) { self.session = session }
}

extension UndoContext {
    private enum CodingKeys: String, CodingKey {
        case session, undo, undoBottom, redo, groupingLevel, openGroup, openName, openNamedOutside
        case openDiscardable, nestedStarts, nestedTail, levels, typing, registrationDisabled
    }

    /// The stacks are packed like the groups (`UndoState`): a busy document's contexts hold
    /// very many group ids, too many to encode one JSON number at a time in every snapshot
    /// (see docs/performance.md). Stacks written as arrays still decode.
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        session = try c.decodeIfPresent(SessionID.self, forKey: .session)
        undo = try PackedCoding.decode(Int32.self, c, .undo)
        undoBottom = try c.decode(Int.self, forKey: .undoBottom)
        redo = try PackedCoding.decode(Int32.self, c, .redo)
        groupingLevel = try c.decode(Int.self, forKey: .groupingLevel)
        openGroup = try c.decode(Int32.self, forKey: .openGroup)
        openName = try c.decode(Int32.self, forKey: .openName)
        openNamedOutside = try c.decode(Bool.self, forKey: .openNamedOutside)
        openDiscardable = try c.decodeIfPresent(Bool.self, forKey: .openDiscardable)
        nestedStarts = try c.decodeIfPresent([Int32].self, forKey: .nestedStarts)
        nestedTail = try c.decodeIfPresent(Int32.self, forKey: .nestedTail)
        levels = try c.decode(Int.self, forKey: .levels)
        typing = try c.decodeIfPresent(TypingRun.self, forKey: .typing)
        registrationDisabled = try c.decodeIfPresent(Int.self, forKey: .registrationDisabled) ?? 0
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(session, forKey: .session)
        try c.encode(PackedCoding.encode(undo), forKey: .undo)
        try c.encode(undoBottom, forKey: .undoBottom)
        try c.encode(PackedCoding.encode(redo), forKey: .redo)
        try c.encode(groupingLevel, forKey: .groupingLevel)
        try c.encode(openGroup, forKey: .openGroup)
        try c.encode(openName, forKey: .openName)
        try c.encode(openNamedOutside, forKey: .openNamedOutside)
        try c.encodeIfPresent(openDiscardable, forKey: .openDiscardable)
        try c.encodeIfPresent(nestedStarts, forKey: .nestedStarts)
        try c.encodeIfPresent(nestedTail, forKey: .nestedTail)
        try c.encode(levels, forKey: .levels)
        try c.encodeIfPresent(typing, forKey: .typing)
        // Written only when set, so a snapshot without it reads as before.
        if registrationDisabled != 0 { try c.encode(registrationDisabled, forKey: .registrationDisabled) }
    }
}

extension UndoGroup {
    /// `context` is stored under its older name, `chain`.
    private enum CodingKeys: String, CodingKey { case context = "chain", first, last, name, flags, id }

    /// Groups written before ids existed take their first revision as id.
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(context: try c.decode(Int32.self, forKey: .context), first: try c.decode(Int32.self, forKey: .first),
                  last: try c.decode(Int32.self, forKey: .last), name: try c.decode(Int32.self, forKey: .name),
                  flags: try c.decode(UInt8.self, forKey: .flags), id: try c.decodeIfPresent(Int32.self, forKey: .id))
    }
}
