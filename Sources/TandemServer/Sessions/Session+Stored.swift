import TandemStore

/// A session and its stored row: everything but `userName` (read from the users) goes both
/// ways, a token's grants and expiry included, so that a session restored after a restart or
/// learned from another node keeps them and still ends when its token does.
extension Session {
    init(_ stored: StoredSession, userName: String?) {
        self.init(id: stored.id, name: stored.name, color: stored.color, created: stored.created, lastSeen: stored.lastSeen,
                  tokenHash: stored.tokenHash, userID: stored.userID, userName: userName)
        expires = stored.expires
        // Grants the server cannot read grant nothing (and a session with an expiry still ends).
        grants = stored.grants.flatMap(DocumentGrants.init(jsonText:)) ?? DocumentGrants()
    }

    /// The row to store, under `name` (a rename stores the new one before it is shown).
    func stored(name: String) -> StoredSession {
        StoredSession(id: id, tokenHash: tokenHash, name: name, color: color, created: created, lastSeen: lastSeen, userID: userID,
                      grants: grants.isEmpty ? nil : grants.jsonText, expires: expires)
    }
}
