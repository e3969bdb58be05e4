/// Roles an embedding application's token grants the session it starts (the claim
/// `"tandem": {"documents": {…}}`, docs/API.md): per document id, and under `*` for every
/// document. They are one more source of the session's role (`AccessRules.role`), the
/// highest wins, and they last exactly as long as the token: renewed with it, gone with it.
///
/// Only `editor` and `viewer` are grantable: ownership is a stored fact that outlives any
/// session (an owner may hand out links, change members and delete), so a token that could
/// grant it would leave access behind after it expired.
struct DocumentGrants: Sendable, Equatable {
    /// By document id.
    var documents: [String: Role] = [:]
    /// What `*` grants in every document.
    var everyDocument: Role?

    /// Entries one claim may hold (documents and `*` together).
    static let maxEntries = 1_000
    static let wildcard = "*"

    /// The role granted in `documentID`: the higher of its own entry and `*`'s.
    func role(in documentID: String) -> Role? {
        switch (documents[documentID], everyDocument) {
        case let (one?, every?): max(one, every)
        case let (one, every): one ?? every
        }
    }

    var isEmpty: Bool { documents.isEmpty && everyDocument == nil }

    /// The grants a JSON object names (document id or `*` → `"editor"` or `"viewer"`); the
    /// message says what is wrong with any other value.
    init(json: JSONValue) throws(Invalid) {
        guard case .object(let members) = json else { throw Invalid("documents must be an object, not \(json.typeName)") }
        guard members.count <= Self.maxEntries else { throw Invalid("documents may name at most \(Self.maxEntries) documents") }
        for (id, value) in members {
            guard id == Self.wildcard || DocumentController.isValidDocumentID(id) else {
                throw Invalid("'\(id.prefix(130))' is no document id (1 to 128 of A-Z a-z 0-9 . _ -) nor *")
            }
            guard let name = value.stringValue, let role = Role(name: name), role != .owner else {
                throw Invalid("the role of '\(id)' must be \"editor\" or \"viewer\"")
            }
            if id == Self.wildcard { everyDocument = role } else { documents[id] = role }
        }
    }

    init() {}

    /// The grants as a JSON object (as `init(json:)` reads it): how the store keeps them.
    var jsonText: String {
        var w = JSONWriter(capacity: 32 + documents.count * 24)
        w.beginObject()
        if let everyDocument { w.key(escaping: Self.wildcard); w.string(everyDocument.name) }
        for (id, role) in documents.sorted(by: { $0.key < $1.key }) { w.key(escaping: id); w.string(role.name) }
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// Grants the store kept (`jsonText`); nil if they cannot be read, which grants nothing.
    init?(jsonText: String) {
        guard let value = try? JSONParser.parse(Array(jsonText.utf8), maxDepth: 2),
              let grants = try? DocumentGrants(json: value) else { return nil }
        self = grants
    }

    struct Invalid: Error, Equatable {
        var message: String
        init(_ message: String) { self.message = message }
    }
}
