import ArgumentParser
import Foundation
import TandemServer

/// The `--auth-jwt-…` options: exactly one key (a public key's PEM or an HS256 secret, from
/// the command line, the environment or a file), checked at start-up so that a server never
/// runs with a key it cannot use.
extension Serve {
    func resolvedJWT() throws -> JWTVerifier? {
        let pem = authJWTKey ?? Environment.string("TANDEM_AUTH_JWT_KEY")
        let secretFile = authJWTSecretFile ?? Environment.string("TANDEM_AUTH_JWT_SECRET_FILE")
        let secret = try authJWTSecret ?? Environment.string("TANDEM_AUTH_JWT_SECRET") ?? secretFile.map(Self.readSecret)
        let issuer = authJWTIssuer ?? Environment.string("TANDEM_AUTH_JWT_ISSUER")
        let audience = authJWTAudience ?? Environment.string("TANDEM_AUTH_JWT_AUDIENCE")
        let leeway = try authJWTLeeway ?? Environment.double("TANDEM_AUTH_JWT_LEEWAY") ?? JWTVerifier.defaultLeeway
        let given = [authJWTSecret ?? Environment.string("TANDEM_AUTH_JWT_SECRET"), secretFile].compactMap { $0 }.count
        guard given <= 1 else { throw ValidationError("--auth-jwt-secret and --auth-jwt-secret-file: give the secret one way") }
        let key: JWTKey
        switch (pem, secret) {
        case (nil, nil):
            guard issuer == nil, audience == nil, authJWTLeeway == nil else {
                throw ValidationError("--auth-jwt-issuer, --auth-jwt-audience and --auth-jwt-leeway need --auth-jwt-key or --auth-jwt-secret")
            }
            return nil
        case (.some, .some):
            throw ValidationError("--auth-jwt-key and --auth-jwt-secret: give one key, a public key or a secret")
        case (let pem?, nil):
            let text = pem.hasPrefix("-----BEGIN") ? pem : try Self.read(pem, what: "--auth-jwt-key")
            do { key = try JWTKey(pem: text) } catch { throw ValidationError("--auth-jwt-key: \(error)") }
        case (nil, let secret?):
            do { key = try JWTKey(secret: Array(secret.utf8)) } catch { throw ValidationError("--auth-jwt-secret: \(error)") }
        }
        if let issuer, issuer.isEmpty { throw ValidationError("--auth-jwt-issuer must not be empty") }
        if let audience, audience.isEmpty { throw ValidationError("--auth-jwt-audience must not be empty") }
        guard (0...JWTVerifier.maxLeeway).contains(leeway) else {
            throw ValidationError("--auth-jwt-leeway must be 0 to \(Int(JWTVerifier.maxLeeway)) seconds")
        }
        return JWTVerifier(key: key, issuer: issuer, audience: audience, leeway: leeway)
    }

    /// A secret file's text, without the newline an editor or `echo` leaves at its end.
    private static func readSecret(_ path: String) throws -> String {
        var text = try read(path, what: "--auth-jwt-secret-file")
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    private static func read(_ path: String, what: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 1 << 20 else {
            throw ValidationError("\(what) \(path): cannot be read (or is over 1 MiB)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
