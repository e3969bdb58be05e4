/// Whose history an undo acts on: the whole document's (latest group by anyone) or one
/// session's own context (its latest group, transformed through everyone's later changes).
public enum UndoScope: Sendable, Hashable, Codable {
    case document
    case session(SessionID)
}
