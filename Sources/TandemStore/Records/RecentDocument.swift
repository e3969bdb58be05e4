/// A document a person opened, and when: what their `GET /documents` lists besides what they
/// own or were given. The store keeps each person's `RecentDocument.limit` latest.
public struct RecentDocument: Sendable, Hashable {
    public var documentID: String
    /// Seconds since 1970.
    public var opened: Double

    /// How many a person keeps: opening one more forgets the one opened longest ago.
    public static let limit = 100

    public init(documentID: String, opened: Double) {
        self.documentID = documentID
        self.opened = opened
    }
}
