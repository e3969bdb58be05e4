/// TandemCore: text, operations, documents, undo. Pure Swift, no I/O.
public enum TandemCore {
    public static let version = "0.1.0"
}
