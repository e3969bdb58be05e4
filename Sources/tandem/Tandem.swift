import ArgumentParser

@main
struct Tandem: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tandem",
        abstract: "A collaborative text-editing server with undo done right.",
        discussion: """
            Every option of `serve` can also come from the environment (TANDEM_PORT, …);
            a flag on the command line wins over the environment, which wins over the default.
            """,
        subcommands: [Serve.self, Healthcheck.self, User.self]
    )
}
