import Testing
import TandemStore

/// Users are kept by id with unique sign-in names, sessions name the user they belong to,
/// and a removed user takes its sessions with it.
@Suite struct UserTests {
    let directory = TemporaryDirectory()

    static let ada = StoredUser(id: "u_ada", name: "ada", displayName: "Ada Lovelace", passwordHash: "$scrypt$x", created: 1)
    static let bob = StoredUser(id: "u_bob", name: "bob", displayName: "Bob", passwordHash: nil, created: 2)

    static func session(_ id: String, user: String?) -> StoredSession {
        StoredSession(id: id, tokenHash: [1], name: id, color: "#123456", created: 1, lastSeen: 2, userID: user)
    }

    @Test(arguments: StoreKind.allCases)
    func usersAreFoundByIdAndName(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.perform([.upsertUser(Self.bob), .upsertUser(Self.ada)])
        #expect(try store.users() == [Self.ada, Self.bob])
        #expect(try store.user(named: "ada") == Self.ada)
        #expect(try store.user(named: "Ada") == nil)
        #expect(try store.user(id: Self.bob.id) == Self.bob)
        #expect(try store.user(id: "u_nobody") == nil)
        var renamed = Self.ada
        renamed.displayName = "Ada K."
        renamed.passwordHash = nil
        try store.perform([.upsertUser(renamed)])
        #expect(try store.user(named: "ada") == renamed)
    }

    @Test(arguments: StoreKind.allCases)
    func aNameTakenByAnotherUserIsAConflictAndChangesNothing(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.perform([.upsertUser(Self.ada), .upsertUser(Self.bob)])
        var thief = Self.bob
        thief.name = "ada"
        #expect(throws: StoreError.conflict("a user named ada exists")) {
            try store.perform([.upsertSession(Self.session("s", user: nil)), .upsertUser(thief)])
        }
        #expect(try store.users() == [Self.ada, Self.bob])
        #expect(try store.sessions() == [])
    }

    @Test(arguments: StoreKind.allCases)
    func sessionsNameTheirUserAndGoWithIt(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.perform([.upsertUser(Self.ada), .upsertUser(Self.bob),
                           .upsertSession(Self.session("s1", user: "u_ada")), .upsertSession(Self.session("s2", user: "u_ada")),
                           .upsertSession(Self.session("s3", user: "u_bob")), .upsertSession(Self.session("s4", user: nil))])
        #expect(try store.sessions().map(\.userID) == ["u_ada", "u_ada", "u_bob", nil])
        try store.perform([.deleteUser("u_ada"), .deleteUser("u_nobody")])
        #expect(try store.sessions().map(\.id) == ["s3", "s4"])
        #expect(try store.users() == [Self.bob])
        #expect(try store.loadAll().sessions.map(\.id) == ["s3", "s4"])
    }

    @Test(arguments: StoreKind.allCases.filter { $0 != .memory })
    func usersOutliveAReopen(_ kind: StoreKind) throws {
        do {
            let store = try kind.make(in: directory)
            try store.perform([.upsertUser(Self.ada), .upsertSession(Self.session("s1", user: "u_ada"))])
            store.close()
        }
        let store = try #require(try kind.reopen(in: directory))
        defer { store.close() }
        #expect(try store.users() == [Self.ada])
        #expect(try store.sessions().first?.userID == "u_ada")
    }
}
