import TandemCore
import TandemHTTP
import TandemStore

/// Saved versions: saving one now, listing them, reading one's text and reverting to it.
final class VersionController: RouteController {
    let service: DocumentService

    init(_ context: ServerContext) {
        service = context.service
    }

    func storedVersion(_ handle: DocumentHandle, _ raw: String?) throws(APIError) -> StoredVersion {
        try service.version(try versionNumber(raw), of: handle)
    }

    func versionNumber(_ raw: String?) throws(APIError) -> Int {
        guard let raw, let n = Int(raw), n >= 0 else { throw .invalidField("n", "must be a version number") }
        return n
    }

    /// The body of `POST …/save`: none, or `{"name"}`.
    func saveRequest(_ req: HTTPRequest) throws(APIError) -> SaveRequest {
        let body = try RequestBody.object(req)
        try body.allowOnly(["name"])
        return SaveRequest(name: try Self.name(body))
    }

    /// The body of `PATCH …/versions/{n}`: `{"name"}`, a name or null.
    func versionName(_ req: HTTPRequest) throws(APIError) -> String? {
        try RouteAccess.checkMetadataBody(req)
        let body = try RequestBody.object(req, allowEmpty: false)
        try body.allowOnly(["name"])
        guard body.json["name"] != nil else { throw .invalidField("name", "is required: a name, or null to take it away") }
        return try Self.name(body)
    }

    /// A name as given, or nil; blank is no name anyone could pick out in a list, so it is
    /// refused rather than stored.
    private static func name(_ body: RequestBody) throws(APIError) -> String? {
        guard let name = try body.string("name") else { return nil }
        if name.isEmpty || name.unicodeScalars.count > SaveRequest.maxNameLength {
            throw .invalidField("name", "must be 1 to \(SaveRequest.maxNameLength) characters")
        }
        if name.unicodeScalars.allSatisfy(\.properties.isWhitespace) {
            throw .invalidField("name", "must not be blank")
        }
        return name
    }

    func revert(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        let session: Session?, handle: DocumentHandle, version: StoredVersion
        do throws(APIError) {
            session = ctx.session
            handle = try ctx.requestedDocument()
            version = try storedVersion(handle, req.parameters["n"])
        } catch {
            return res.send(error.response)
        }
        let replacement = TextReplacement(text: version.text, actionName: "Revert to Version", ifMatch: nil)
        service.replaceText(replacement, in: handle, by: session) { res.send($0) { .json(DocumentJSON.edit($0)) } }
    }
}
