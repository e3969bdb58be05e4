import COpenSSL
import Foundation

/// A local account's password as stored: scrypt (RFC 7914, through OpenSSL 3's KDF) in the PHC
/// string format, `$scrypt$ln=15,r=8,p=3$<salt>$<hash>` (standard base64 without padding), so
/// the parameters a hash was made with travel with it and can be raised later
/// (`needsRehash`). Nothing here keeps the password; verification compares in constant time.
///
/// The default is OWASP's scrypt setting of N = 2^15, r = 8, p = 3: 32 MiB and slow by design,
/// so a check runs on the heavy-work pool, a few at a time, and a burst of sign-ins
/// costs the server a bounded amount of memory.
struct PasswordHash: Sendable, Equatable {
    struct Parameters: Sendable, Equatable {
        /// log2 of N, the CPU and memory cost.
        var logN: Int
        var r: Int
        var p: Int

        static let recommended = Parameters(logN: 15, r: 8, p: 3)
        /// What a stored hash may ask for: a hash written by hand with larger figures must not
        /// make a sign-in take gigabytes or minutes.
        static func isAcceptable(_ p: Parameters) -> Bool {
            (10...20).contains(p.logN) && (1...32).contains(p.r) && (1...16).contains(p.p)
                && 128 << p.logN * p.r * p.p <= 1 << 30
        }

        /// Bytes scrypt needs: 128 · N · r · p for the mixing, and 128 · r · p for the blocks.
        var memory: UInt64 { UInt64(128 * p * r) * ((UInt64(1) << logN) + 1) + (1 << 20) }
    }

    let parameters: Parameters
    let salt: [UInt8]
    let hash: [UInt8]

    static let saltBytes = 16
    static let hashBytes = 32

    /// A new hash of `password` with a fresh random salt; nil only if OpenSSL fails.
    static func make(_ password: String, parameters: Parameters = .recommended) -> PasswordHash? {
        let salt = Secrets.randomBytes(saltBytes)
        guard let hash = derive(password, salt: salt, parameters: parameters) else { return nil }
        return PasswordHash(parameters: parameters, salt: salt, hash: hash)
    }

    /// Whether `password` is the one hashed, in time that does not depend on where they differ.
    func verify(_ password: String) -> Bool {
        guard let candidate = Self.derive(password, salt: salt, parameters: parameters) else { return false }
        return Secrets.constantTimeEqual(candidate, hash)
    }

    /// Made with other parameters than today's: to be hashed anew at the next sign-in.
    var needsRehash: Bool { parameters != .recommended }

    /// The raw scrypt output of `count` bytes.
    static func derive(_ password: String, salt: [UInt8], parameters: Parameters, count: Int = hashBytes) -> [UInt8]? {
        // Any figures a caller passes, within what a check may cost (tests use RFC 7914's
        // small ones); stored strings are held to `isAcceptable` when read.
        guard (1...20).contains(parameters.logN), parameters.r >= 1, parameters.p >= 1,
              parameters.memory <= 1 << 30 + 1 << 21 else { return nil }
        var out = [UInt8](repeating: 0, count: count)
        let pass = Array(password.utf8)
        let ok = pass.withUnsafeBufferPointer { pass in
            salt.withUnsafeBufferPointer { salt in
                out.withUnsafeMutableBufferPointer { out in
                    shim_scrypt(pass.baseAddress, pass.count, salt.baseAddress, salt.count, UInt64(1) << parameters.logN,
                                UInt32(parameters.r), UInt32(parameters.p), parameters.memory, out.baseAddress, out.count)
                }
            }
        }
        return ok == 1 ? out : nil
    }

    // MARK: The PHC string

    var encoded: String {
        "$scrypt$ln=\(parameters.logN),r=\(parameters.r),p=\(parameters.p)$\(Self.base64(salt))$\(Self.base64(hash))"
    }

    /// A stored string read back; nil if it is not one this server writes or accepts.
    init?(encoded: String) {
        let parts = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "scrypt" else { return nil }
        var values: [Substring: Int] = [:]
        for field in parts[2].split(separator: ",") {
            let kv = field.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, let v = Int(kv[1]), values[kv[0]] == nil else { return nil }
            values[kv[0]] = v
        }
        guard values.count == 3, let logN = values["ln"], let r = values["r"], let p = values["p"] else { return nil }
        let parameters = Parameters(logN: logN, r: r, p: p)
        guard Parameters.isAcceptable(parameters), let salt = Self.unbase64(parts[3]), let hash = Self.unbase64(parts[4]),
              salt.count >= 8, salt.count <= 64, hash.count == Self.hashBytes
        else { return nil }
        self.init(parameters: parameters, salt: salt, hash: hash)
    }

    init(parameters: Parameters, salt: [UInt8], hash: [UInt8]) {
        self.parameters = parameters
        self.salt = salt
        self.hash = hash
    }

    private static func base64(_ bytes: [UInt8]) -> String {
        var s = Data(bytes).base64EncodedString()
        while s.hasSuffix("=") { s.removeLast() }
        return s
    }

    private static func unbase64(_ s: Substring) -> [UInt8]? {
        guard s.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "/") }) else { return nil }
        var padded = String(s)
        while padded.count % 4 != 0 { padded.append("=") }
        return Data(base64Encoded: padded).map { [UInt8]($0) }
    }
}
