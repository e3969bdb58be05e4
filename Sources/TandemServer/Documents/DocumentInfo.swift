import TandemCore

/// A document as a reader sees it: what is committed (a change still waiting for its commit
/// is not shown), with the change count of the reader's scope (`reportedChangeCount`).
struct DocumentInfo: Sendable {
    var id: String
    var title: String
    var revision: Int
    var text: Rope
    var changeCount: Int
    var hasUnsavedChanges: Bool
    var condition: DocumentCondition
    var editingDisabled: Bool
    var secure: Bool
    var levelsOfUndo: Int
    var created: Double
    var modified: Double
    var access: AccessMode
    var owner: String?
    /// The reader's role, and whether the access rules let it edit.
    var role: Role?
    var canEdit: Bool
    var canRename: Bool

    /// Read in the document's executor, for `caller`.
    init(id: String, state st: DocumentState, scope: UndoScope = .document, caller: Caller = .anonymous) {
        self.id = id
        title = st.title
        revision = st.committedRevision
        text = st.committedRope
        changeCount = st.reportedChangeCount(scope)
        hasUnsavedChanges = st.hasUnsavedChanges
        condition = st.condition
        editingDisabled = st.editingDisabled
        secure = st.secure
        levelsOfUndo = st.document.undoManager.levelsOfUndo
        created = st.created
        modified = st.modified
        access = st.access.access
        owner = st.access.owner
        role = st.access.role(of: caller, in: id)
        canEdit = AccessPolicy.decide(.edit, mode: access, role: role, hasSession: caller.session != nil) == .allowed
        canRename = AccessPolicy.decide(.rename, mode: access, role: role, hasSession: caller.session != nil) == .allowed
    }
}
