/// Uniform Type Identifiers as pasteboards name representations, and their MIME types.
///
/// A type may be given either way: `public.png` or `image/png`. MIME types in the table map
/// to their UTI; any other MIME type stays as it is (lowercased, parameters dropped) and is
/// itself the identifier. UTIs never contain `/`, so such an identifier cannot collide with
/// one, and it maps back to the same MIME type — no opaque `dyn.` identifiers are made.
public enum PasteboardType {
    public static let utf8PlainText = "public.utf8-plain-text"
    public static let plainText = "public.plain-text"
    public static let text = "public.text"
    public static let html = "public.html"
    public static let png = "public.png"
    public static let jpeg = "public.jpeg"
    public static let json = "public.json"
    public static let url = "public.url"
    public static let rtf = "public.rtf"
    public static let data = "public.data"

    /// UTI and its preferred MIME type, and whether its bytes are text (shown as strings).
    static let table: [(identifier: String, mime: String, isText: Bool)] = [
        (utf8PlainText, "text/plain", true),
        (html, "text/html", true),
        (png, "image/png", false),
        (jpeg, "image/jpeg", false),
        ("com.compuserve.gif", "image/gif", false),
        ("public.tiff", "image/tiff", false),
        ("org.webmproject.webp", "image/webp", false),
        ("public.svg-image", "image/svg+xml", true),
        (json, "application/json", true),
        (url, "text/uri-list", true),
        (rtf, "text/rtf", true),
        ("public.xml", "application/xml", true),
        ("public.comma-separated-values-text", "text/csv", true),
        ("net.daringfireball.markdown", "text/markdown", true),
        ("public.vcard", "text/vcard", true),
        ("com.adobe.pdf", "application/pdf", false),
        (data, "application/octet-stream", false),
    ]

    /// Other spellings of a type in the table.
    static let aliases: [String: String] = [
        "application/rtf": rtf,
        "text/xml": "public.xml",
        "image/jpg": jpeg,
        "text/x-markdown": "net.daringfireball.markdown",
        "text/json": json,
        "text/x-vcard": "public.vcard",
    ]

    /// UTIs that are plain text without a table entry of their own.
    static let otherPlainText: Set<String> = [plainText, text]

    /// The identifier for a UTI or MIME type; nil when it is neither (empty, too long,
    /// characters a type cannot have).
    public static func identifier(for type: String) -> String? {
        var t = Substring(type)
        if let semicolon = t.firstIndex(of: ";") { t = t[..<semicolon] }
        while t.first == " " { t.removeFirst() }
        while t.last == " " { t.removeLast() }
        guard !t.isEmpty, t.utf8.count <= 128 else { return nil }
        if t.contains("/") {
            let mime = t.lowercased()
            let parts = mime.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(isTokenByte) }) else { return nil }
            if let alias = aliases[mime] { return alias }
            return table.first { $0.mime == mime }?.identifier ?? mime
        }
        // Reverse-DNS: letters, digits, '.', '-', and no empty label.
        guard t.utf8.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }),
              !t.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) else { return nil }
        return String(t)
    }

    /// The MIME type to label bytes of this type with; `application/octet-stream` when unknown.
    public static func mimeType(for identifier: String) -> String {
        if identifier.contains("/") { return identifier }
        if otherPlainText.contains(identifier) { return "text/plain" }
        return table.first { $0.identifier == identifier }?.mime ?? "application/octet-stream"
    }

    /// Text types are shown as JSON strings (when their bytes are UTF-8) and served with a charset.
    public static func isText(_ identifier: String) -> Bool {
        if otherPlainText.contains(identifier) { return true }
        if let entry = table.first(where: { $0.identifier == identifier }) { return entry.isText }
        if identifier.contains("/") {
            return identifier.hasPrefix("text/") || identifier.hasSuffix("+json") || identifier.hasSuffix("+xml")
        }
        return false
    }

    /// The Content-Type a representation is served with: its MIME type, with a charset for
    /// text. A representation may hold any bytes (base64 in JSON takes them): bytes that are
    /// not UTF-8 under a textual MIME type (text, JSON, XML, YAML, form data, scripts) are served as
    /// `application/octet-stream`, never as text in an encoding they are not in.
    public static func servedMIMEType(for identifier: String, data: [UInt8]) -> String {
        let mime = mimeType(for: identifier)
        let textual = isText(identifier) || mime.hasPrefix("text/") || mime.hasSuffix("/json") || mime.hasSuffix("+json")
            || mime.hasSuffix("/xml") || mime.hasSuffix("+xml") || mime == "application/x-www-form-urlencoded"
            || mime.hasSuffix("/javascript") || mime.hasSuffix("/ecmascript")
            || mime.hasSuffix("/yaml") || mime.hasSuffix("/x-yaml") || mime.hasSuffix("+yaml")
        guard textual else { return mime }
        guard String(validating: data, as: UTF8.self) != nil else { return "application/octet-stream" }
        return isText(identifier) ? mime + "; charset=utf-8" : mime
    }

    /// The types paste takes as plain text, best first.
    public static let plainTextTypes = [utf8PlainText, plainText, text]

    private static func isAlphanumeric(_ b: UInt8) -> Bool {
        (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122)
    }

    /// RFC 9110 token characters.
    private static func isTokenByte(_ b: UInt8) -> Bool {
        isAlphanumeric(b) || "!#$%&'*+-.^_`|~".utf8.contains(b)
    }
}
