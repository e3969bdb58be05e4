import TandemCore
import TandemHTTP
import TandemStore

/// TandemServer: the REST API over TandemCore.
public enum TandemServer {
    public static let version = TandemCore.version
}
