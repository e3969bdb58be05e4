import Foundation
import TandemStore

/// Local accounts as the operator manages them (`tandem user …`): the store holds the users,
/// and a meta generation tells running servers, on every node, that users were removed, so
/// that their sessions end there too (`DocumentService+Users`). Used by the command line,
/// which writes to the store directly, with or without a server running.
public enum Accounts {
    /// The meta key whose value changes whenever a user is removed or changes password.
    public static let generationKey = "users:generation"

    public enum Failure: Error, CustomStringConvertible {
        case badName, badPassword, exists(String), notFound(String), store(StoreError), hashing
        public var description: String {
            switch self {
            case .badName: "a user name is \(UserName.rule)"
            case .badPassword: "a password is \(UserName.passwordRule)"
            case .exists(let n): "a user named \(n) exists"
            case .notFound(let n): "no user named \(n)"
            case .store(let e): "the store: \(e)"
            case .hashing: "the password could not be hashed"
            }
        }
    }

    /// A new user id.
    static func newID() -> String { "u_" + Secrets.base64url(Secrets.randomBytes(9)) }

    /// Adds a local account; returns it as stored.
    @discardableResult
    public static func add(name: String, displayName: String?, password: String, to store: any DocumentStore,
                           now: Double = Date().timeIntervalSince1970) throws(Failure) -> StoredUser {
        guard let key = UserName.normalized(name) else { throw .badName }
        guard UserName.acceptablePassword(password) else { throw .badPassword }
        guard let hash = PasswordHash.make(password) else { throw .hashing }
        let id = newID()
        let display = displayName.map { String($0.prefix(100)) } ?? name
        let user = StoredUser(id: id, name: key, displayName: display, passwordHash: hash.encoded, created: now)
        do {
            try store.perform([.upsertUser(user)])
        } catch .conflict {
            throw .exists(key)
        } catch {
            throw .store(error)
        }
        return user
    }

    /// Gives an account a new password; its sessions end everywhere.
    public static func setPassword(name: String, password: String, in store: any DocumentStore) throws(Failure) {
        guard let key = UserName.normalized(name) else { throw .badName }
        guard UserName.acceptablePassword(password) else { throw .badPassword }
        guard let hash = PasswordHash.make(password) else { throw .hashing }
        do {
            guard var user = try store.user(named: key) else { throw Failure.notFound(key) }
            user.passwordHash = hash.encoded
            let sessions = try store.sessions().filter { $0.userID == user.id }.map { StoreWrite.deleteSession($0.id) }
            try store.perform([.upsertUser(user)] + sessions + [bump()])
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .store(error as? StoreError ?? .io("\(error)"))
        }
    }

    /// Removes an account and its sessions everywhere.
    public static func remove(name: String, from store: any DocumentStore) throws(Failure) {
        guard let key = UserName.normalized(name) else { throw .badName }
        do {
            guard let user = try store.user(named: key) else { throw Failure.notFound(key) }
            try store.perform([.deleteUser(user.id), .forgetOpened(person: Session.userPrefix + user.id), bump()])
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .store(error as? StoreError ?? .io("\(error)"))
        }
    }

    /// A new value for the generation: random, so two writers never write the same one.
    static func bump() -> StoreWrite {
        .setMeta(generationKey, Secrets.randomBytes(8))
    }
}
