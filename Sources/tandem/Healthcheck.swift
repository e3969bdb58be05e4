import ArgumentParser
import Foundation
import TandemHTTP

/// `tandem healthcheck`: the container's HEALTHCHECK, so the runtime image needs no curl.
struct Healthcheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Exit 0 when the local server answers GET /healthz with 200 (TANDEM_PORT or 8080).",
        // The server answers 503 while its store cannot commit (a full disk): unhealthy too.
        discussion: """
            Asks 127.0.0.1, then ::1. Speaks TLS when --tls is given or TANDEM_TLS_CERT is set \
            (without verifying the certificate: the server is this machine's own).
            """
    )

    @Option(help: "Port to check (env: TANDEM_PORT, default: 8080).")
    var port: Int?

    @Option(help: "Seconds to wait for the answer.")
    var timeout: Int = 3

    @Flag(help: "Use HTTPS (default: when TANDEM_TLS_CERT is set).")
    var tls = false

    func run() throws {
        let port = try port ?? Environment.int("TANDEM_PORT") ?? 8080
        let useTLS = tls || Environment.string("TANDEM_TLS_CERT") != nil
        switch HTTPProbe.get(path: "/healthz", port: port, tls: useTLS, timeoutSeconds: max(1, timeout)) {
        case .status(200, let address):
            print("healthy (\(useTLS ? "https" : "http")://\(address))")
        case .status(503, let address):
            print("unhealthy: \(address) answered 503: its store cannot save (GET /healthz says why)")
            throw ExitCode(1)
        case .status(let code, let address):
            print("unhealthy: \(address) answered \(code)")
            throw ExitCode(1)
        case .failed(let reason):
            print("unhealthy: \(reason)")
            throw ExitCode(1)
        }
    }
}
