/// A document a person opened, and when: what their `GET /documents` lists besides what they
/// own or were given. The store keeps each person's `RecentDocument.limit` latest.
public struct RecentDocument: Sendable, Hashable {
    public var documentID: String
    /// Seconds since 1970.
    public var opened: Double
    /// The share link it was opened with (its id), nil when opened with the person's own
    /// rights: listed while that link works.
    public var link: String?

    /// How many a person keeps: opening one more forgets the one opened longest ago.
    public static let limit = 100

    public init(documentID: String, opened: Double, link: String? = nil) {
        self.documentID = documentID
        self.opened = opened
        self.link = link
    }
}
