import TandemHTTP

extension APIError {
    /// The error as the contract sends it: `{"error":{"code","message"}}` with its status and headers.
    public var response: HTTPResponse {
        .error(HTTPStatus(status.code), code: code, message: message,
               headers: HTTPHeaders(headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
    }
}
