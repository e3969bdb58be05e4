import ArgumentParser
import Foundation
import TandemServer
import TandemStore

/// `tandem user add|passwd|remove|list`: the operator's local accounts, written to the store
/// the server uses (the SQLite file under --data, or --database), with or without a server
/// running: running servers read users when someone signs in, and end a removed user's
/// sessions within a second or two (`Accounts`).
struct User: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage local accounts (people who sign in with a name and password).",
        discussion: """
            The password is read from standard input (its first line), so that it never shows \
            in the process list or the shell's history: printf '%s\\n' "$PASSWORD" | tandem user add ada
            """,
        subcommands: [Add.self, Passwd.self, Remove.self, List.self]
    )

    struct Where: ParsableArguments {
        @Option(name: .customLong("data"), help: "Folder of the SQLite store (env: TANDEM_DATA, default: ./data).")
        var dataDirectory: String?

        @Option(name: .customLong("database"), help: "A PostgreSQL URL instead (env: TANDEM_DATABASE_URL).")
        var databaseURL: String?

        @Option(name: .customLong("database-schema"), help: "The PostgreSQL schema (env: TANDEM_DATABASE_SCHEMA).")
        var databaseSchema: String?

        func open() throws -> any DocumentStore {
            if let url = databaseURL ?? Environment.string("TANDEM_DATABASE_URL") {
                return try PostgresStore(url: url, schema: databaseSchema ?? Environment.string("TANDEM_DATABASE_SCHEMA"))
            }
            let directory = dataDirectory ?? Environment.string("TANDEM_DATA") ?? "./data"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            return try SQLiteStore(directory: directory)
        }
    }

    static func readPassword() throws -> String {
        guard let line = readLine(strippingNewline: true) else { throw ValidationError("give the password on standard input") }
        return line
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an account; its password comes from standard input.")
        @Argument(help: "The sign-in name (\(UserName.rule); compared ignoring case).") var name: String
        @Option(help: "The name others see (default: the sign-in name).") var displayName: String?
        @OptionGroup var place: Where

        func run() throws {
            let store = try place.open()
            defer { store.close() }
            let user = try Accounts.add(name: name, displayName: displayName, password: try User.readPassword(), to: store)
            print("added \(user.name) (\(user.id))")
        }
    }

    struct Passwd: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set an account's password (from standard input); its sessions end.")
        @Argument var name: String
        @OptionGroup var place: Where

        func run() throws {
            let store = try place.open()
            defer { store.close() }
            try Accounts.setPassword(name: name, password: try User.readPassword(), in: store)
            print("password of \(UserName.normalized(name) ?? name) changed; its sessions end")
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an account; its sessions end.")
        @Argument var name: String
        @OptionGroup var place: Where

        func run() throws {
            let store = try place.open()
            defer { store.close() }
            try Accounts.remove(name: name, from: store)
            print("removed \(UserName.normalized(name) ?? name)")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the accounts: sign-in name, id, display name.")
        @OptionGroup var place: Where

        func run() throws {
            let store = try place.open()
            defer { store.close() }
            for user in try store.users().sorted(by: { $0.name < $1.name }) {
                print("\(user.name)\t\(user.id)\t\(user.displayName)")
            }
        }
    }
}
