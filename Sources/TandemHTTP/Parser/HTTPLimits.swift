/// Size limits applied while parsing, before anything is buffered beyond them.
public struct HTTPLimits: Sendable, Equatable {
    /// Longest request target (414 beyond).
    public var maxTargetLength: Int
    /// Longest header section, request line included; also bounds the trailer section (431 beyond).
    public var maxHeaderBytes: Int
    /// Largest body, declared or de-chunked (413 beyond).
    public var maxBodyBytes: Int

    public init(maxTargetLength: Int = 8 * 1024, maxHeaderBytes: Int = 16 * 1024, maxBodyBytes: Int = 8 * 1024 * 1024) {
        self.maxTargetLength = maxTargetLength
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
    }
}
