import CLibpq
import Foundation

/// A value bound to a query parameter: every parameter goes in binary, with its type named,
/// so nothing is formatted as text and parsed back (bytes, doubles and integers exactly).
enum PGValue {
    case int(Int)
    case double(Double)
    case text(String)
    case bytes([UInt8])
    case bool(Bool)
    /// One-dimensional arrays (`unnest($1::text[], …)`), sent in binary like the rest.
    case textArray([String])
    case intArray([Int])
    case bytesArray([[UInt8]])
    case null

    /// Text a client wrote (a title, a name, a version's text) as BYTEA: a TEXT column refuses
    /// U+0000, which JSON and Tandem allow.
    static func utf8(_ s: String) -> PGValue { .bytes(Array(s.utf8)) }

    /// PostgreSQL's type OIDs (pg_type.h): int8, float8, text, bytea, bool; NULL unspecified,
    /// so the server takes the column's type.
    var oid: Oid {
        switch self {
        case .null: 0
        case .int: 20
        case .double: 701
        case .text: 25
        case .bytes: 17
        case .bool: 16
        case .textArray: 1009
        case .intArray: 1016
        case .bytesArray: 1001
        }
    }

    /// The binary array form: dimensions, no NULL flag, the element type, then each element
    /// as its length and bytes.
    private static func array(_ elements: [[UInt8]], of element: Oid) -> [UInt8] {
        func int32(_ v: Int) -> [UInt8] { withUnsafeBytes(of: Int32(v).bigEndian) { Array($0) } }
        var out = int32(elements.isEmpty ? 0 : 1) + int32(0) + int32(Int(element))
        if !elements.isEmpty { out += int32(elements.count) + int32(1) }
        for e in elements { out += int32(e.count) + e }
        return out
    }

    /// The binary wire form; nil for NULL.
    var wire: [UInt8]? {
        switch self {
        case .int(let value): withUnsafeBytes(of: Int64(value).bigEndian) { Array($0) }
        case .double(let value): withUnsafeBytes(of: value.bitPattern.bigEndian) { Array($0) }
        case .text(let value): Array(value.utf8)
        case .bytes(let value): value
        case .bool(let value): [value ? 1 : 0]
        case .textArray(let values): Self.array(values.map { Array($0.utf8) }, of: 25)
        case .intArray(let values): Self.array(values.map { withUnsafeBytes(of: Int64($0).bigEndian) { Array($0) } }, of: 20)
        case .bytesArray(let values): Self.array(values, of: 17)
        case .null: nil
        }
    }
}

/// A query's result, read in binary (`resultFormat` 1): int8 and float8 big-endian, text and
/// bytea as their bytes. Cleared when released.
final class PGResult {
    let raw: OpaquePointer

    init(_ raw: OpaquePointer) {
        self.raw = raw
    }

    deinit {
        PQclear(raw)
    }

    var count: Int { Int(PQntuples(raw)) }

    /// Rows that the command changed (`UPDATE`, `DELETE`, `INSERT`), 0 if it says none.
    var affected: Int { Int(String(cString: PQcmdTuples(raw))) ?? 0 }

    func isNull(_ row: Int, _ column: Int) -> Bool {
        PQgetisnull(raw, Int32(row), Int32(column)) != 0
    }

    func bytes(_ row: Int, _ column: Int) -> [UInt8] {
        if isNull(row, column) { return [] }
        let length = Int(PQgetlength(raw, Int32(row), Int32(column)))
        guard length > 0, let value = PQgetvalue(raw, Int32(row), Int32(column)) else { return [] }
        return value.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
    }

    func int(_ row: Int, _ column: Int) -> Int {
        let bytes = bytes(row, column)
        var value: Int64 = 0
        for byte in bytes { value = value << 8 | Int64(byte) }
        // int4 (e.g. a count) arrives in 4 bytes: sign-extend it.
        if bytes.count == 4 { value = Int64(Int32(truncatingIfNeeded: value)) }
        return Int(value)
    }

    func double(_ row: Int, _ column: Int) -> Double {
        var bits: UInt64 = 0
        for byte in bytes(row, column) { bits = bits << 8 | UInt64(byte) }
        return Double(bitPattern: bits)
    }

    func text(_ row: Int, _ column: Int) -> String {
        String(decoding: bytes(row, column), as: UTF8.self)
    }

    func optionalText(_ row: Int, _ column: Int) -> String? {
        isNull(row, column) ? nil : text(row, column)
    }

    func optionalDouble(_ row: Int, _ column: Int) -> Double? {
        isNull(row, column) ? nil : double(row, column)
    }

    func bool(_ row: Int, _ column: Int) -> Bool {
        bytes(row, column).first.map { $0 != 0 } ?? false
    }
}

/// One libpq connection, used by one thread at a time (the writer's own, or a reader's while
/// it holds it from the pool: hence `@unchecked Sendable`, for handing it over). A connection
/// that broke (server restarted, backend terminated, network gone) fails its queries with
/// `.io` and is reset by `reconnectIfBroken()` before the next use: nothing here traps.
final class PGConnection: @unchecked Sendable {
    private var conn: OpaquePointer?
    /// Statements prepared on this connection, by SQL and parameter types: each is parsed
    /// and planned once per connection rather than on every call.
    private var prepared: [String: String] = [:]
    /// The libpq conninfo string or URL.
    private let conninfo: String
    /// The schema every statement uses (`search_path`), nil for the server's default.
    let schema: String?

    init(conninfo: String, schema: String?) throws(StoreError) {
        self.conninfo = conninfo
        self.schema = schema
        try connect()
    }

    deinit {
        close()
    }

    private func connect(to target: String? = nil) throws(StoreError) {
        if let conn { PQfinish(conn) }
        prepared = [:]
        conn = PQconnectdb(target ?? conninfo)
        guard let conn, PQstatus(conn) == CONNECTION_OK else {
            let message = conn.map { Self.message(PQerrorMessage($0)) } ?? "out of memory"
            close()
            throw .io("cannot connect to PostgreSQL: \(message)")
        }
        // Plain statements, no notices on stderr.
        PQsetNoticeProcessor(conn, { _, _ in }, nil)
        try execute("SET client_min_messages TO warning")
        if let schema { try execute("SET search_path TO \(Self.identifier(schema))") }
    }

    /// Connects again if the connection broke (or was never made); `conninfo` overrides the
    /// store's (tests point it at a dead port).
    func reconnectIfBroken(conninfo override: String? = nil) throws(StoreError) {
        if let conn, PQstatus(conn) == CONNECTION_OK { return }
        try connect(to: override)
    }

    var isBroken: Bool {
        guard let conn else { return true }
        return PQstatus(conn) != CONNECTION_OK
    }

    /// The libpq handle, for waiting on its socket (`ClusterListener`).
    var rawConnection: OpaquePointer? { conn }

    /// The server process serving this connection (for tests that terminate it).
    var backendPID: Int32 {
        conn.map { PQbackendPID($0) } ?? 0
    }

    /// Inside a transaction block (or a failed one) rather than idle.
    var inTransaction: Bool {
        guard let conn else { return false }
        let status = PQtransactionStatus(conn)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    func close() {
        if let conn { PQfinish(conn) }
        conn = nil
    }

    /// Runs one statement with binary parameters and binary results.
    @discardableResult
    func query(_ sql: String, _ parameters: [PGValue] = []) throws(StoreError) -> PGResult {
        guard let conn else { throw .io("the PostgreSQL connection is closed") }
        let wires = parameters.map(\.wire)
        let types = parameters.map(\.oid)
        let lengths = wires.map { Int32($0?.count ?? 0) }
        let formats = [Int32](repeating: 1, count: parameters.count)
        // Each value copied into memory that outlives the call.
        let values: [UnsafeMutablePointer<CChar>?] = wires.map { wire in
            guard let wire else { return nil }
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: max(wire.count, 1))
            wire.withUnsafeBytes { UnsafeMutableRawPointer(pointer).copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(pointer), byteCount: wire.count) }
            return pointer
        }
        defer { for value in values { value?.deallocate() } }
        let key = types.reduce(into: sql + "\u{0}") { $0 += String($1) + "," }
        let name: String
        if let known = prepared[key] {
            name = known
        } else {
            name = "tandem_\(prepared.count)"
            _ = try check(PQprepare(conn, name, sql, Int32(parameters.count), types))
            prepared[key] = name
        }
        let raw = values.withUnsafeBufferPointer { values in
            values.withMemoryRebound(to: UnsafePointer<CChar>?.self) { values in
                PQexecPrepared(conn, name, Int32(parameters.count), values.baseAddress, lengths, formats, 1)
            }
        }
        return try check(raw)
    }

    /// Runs one or more statements without parameters (schema, transactions).
    func execute(_ sql: String) throws(StoreError) {
        guard let conn else { throw .io("the PostgreSQL connection is closed") }
        _ = try check(PQexec(conn, sql))
    }

    private func check(_ raw: OpaquePointer?) throws(StoreError) -> PGResult {
        guard let raw else {
            throw .io("PostgreSQL: \(conn.map { Self.message(PQerrorMessage($0)) } ?? "no connection")")
        }
        let result = PGResult(raw)
        switch PQresultStatus(raw) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return result
        default:
            let message = Self.message(PQresultErrorMessage(raw))
            let field = PQresultErrorField(raw, Int32(UInt8(ascii: "C")))
            let state = field.map { String(cString: $0) }
            throw StoreError(sqlState: state, message: message, connectionBroken: isBroken)
        }
    }

    static func message(_ pointer: UnsafePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `name` as a quoted SQL identifier.
    static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension StoreError {
    /// A deadlock or serialization failure: the transaction was rolled back and may run again.
    var isDeadlock: Bool {
        guard case .io(let message) = self else { return false }
        return message.hasSuffix("(40P01)") || message.hasSuffix("(40001)")
    }

    /// Maps a PostgreSQL error (its SQLSTATE, see the manual's appendix A) to a `StoreError`:
    /// integrity and data errors are conflicts (only that write fails), a full disk is `.full`,
    /// a read-only server `.readOnly`, damaged data `.corrupt`, a lost connection and anything
    /// else `.io`.
    init(sqlState: String?, message: String, connectionBroken: Bool) {
        guard let state = sqlState, !connectionBroken else {
            self = .io("the PostgreSQL connection was lost: \(message)")
            return
        }
        switch state {
        case "53100": self = .full
        case "25006": self = .readOnly
        case "XX001", "XX002": self = .corrupt(message)
        case _ where state.hasPrefix("23") || state.hasPrefix("22"): self = .conflict(message)
        case "40P01", "40001": self = .io("PostgreSQL: \(message) (\(state))")
        case _ where state.hasPrefix("08") || state.hasPrefix("57P"):
            self = .io("the PostgreSQL connection was lost: \(message)")
        default: self = .io("PostgreSQL: \(message) (\(state))")
        }
    }
}
