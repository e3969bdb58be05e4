/// JSON Schemas (OpenAPI 3.1 dialect) of what the API sends and takes.
enum Schemas {
    static func ref(_ name: String) -> JSONValue { ["$ref": .string("#/components/schemas/\(name)")] }
    static func object(_ properties: [(String, JSONValue)], required: [String], additional: Bool = false) -> JSONValue {
        [
            "type": "object",
            "properties": .object(properties),
            "required": .array(required.map { .string($0) }),
            "additionalProperties": .bool(additional),
        ]
    }
    static let string: JSONValue = ["type": "string"]
    static let integer: JSONValue = ["type": "integer"]
    static let nonNegative: JSONValue = ["type": "integer", "minimum": 0]
    static let boolean: JSONValue = ["type": "boolean"]
    static let number: JSONValue = ["type": "number"]
    /// An embedding application's signed token (JWS compact serialization, docs/API.md).
    static let jwt: JSONValue = ["type": "string", "minLength": 1, "maxLength": 8192, "description": "An embedding application's signed token (JWS compact serialization): sub, name and exp required"]
    /// A session an application's token started ends then (seconds since 1970) unless renewed.
    static let sessionExpires: JSONValue = ["type": "number", "description": "Seconds since 1970 when the session ends unless renewed: only on a session an application's token (jwt) started"]
    static let nullableString: JSONValue = ["type": ["string", "null"]]
    static let nullableNumber: JSONValue = ["type": ["number", "null"]]
    static func array(_ items: JSONValue) -> JSONValue { ["type": "array", "items": items] }

    /// One event of a text/event-stream, as OpenAPI tools read them: its fields as strings.
    static func serverSentEvent(_ types: [String]) -> JSONValue {
        [
            "type": "object",
            "properties": [
                "event": ["type": "string", "enum": .array(types.map { .string($0) })],
                "data": ["type": "string"],
                "id": ["type": "string"],
                "retry": ["type": "integer"],
            ],
        ]
    }

    static let components: [(String, JSONValue)] = [
        ("Error", object([
            ("error", object([("code", string), ("message", string)], required: ["code", "message"])),
        ], required: ["error"])),
        ("Session", object([
            ("id", string), ("name", string), ("color", string), ("user", string), ("expires", sessionExpires),
        ], required: ["id", "name", "color"])),
        ("SessionCreated", object([
            ("id", string), ("token", string), ("name", string), ("color", string), ("user", string), ("expires", sessionExpires),
        ], required: ["id", "token", "name", "color"])),
        ("CurrentUser", object([
            ("id", ["type": ["string", "null"]]), ("name", ["type": ["string", "null"]]), ("displayName", string),
            ("guest", boolean), ("session", string),
        ], required: ["id", "name", "displayName", "guest", "session"])),
        ("Operation", [
            "description": "Compact TextOperation: a positive integer retains, a string inserts, a negative integer deletes. Lengths in UTF-16 code units.",
            "type": "array",
            "items": ["oneOf": [["type": "integer", "not": ["const": 0]], ["type": "string", "minLength": 1]]],
        ]),
        ("Selection", object([("anchor", nonNegative), ("head", nonNegative)], required: ["anchor", "head"])),
        ("Range", object([("from", nonNegative), ("to", nonNegative)], required: ["from", "to"])),
        ("DocumentSummary", object([
            ("id", string), ("title", string), ("revision", nonNegative), ("length", nonNegative), ("modified", number),
            ("role", ["type": ["string", "null"], "enum": ["owner", "editor", "viewer", .null]]),
            ("opened", ["type": ["number", "null"]]),
        ], required: ["id", "title", "revision", "length", "modified", "role", "opened"])),
        ("Document", object([
            ("id", string), ("title", string), ("revision", nonNegative), ("length", nonNegative), ("text", string),
            ("changeCount", integer), ("hasUnsavedChanges", boolean),
            ("state", ["type": "string", "enum": ["normal", "editingDisabled", "savingError"]]),
            ("editingDisabled", boolean), ("secure", boolean), ("levelsOfUndo", nonNegative),
            ("created", number), ("modified", number),
            ("access", ref("AccessMode")), ("owner", nullableString),
            ("role", ["type": ["string", "null"], "enum": ["owner", "editor", "viewer", .null]]), ("canEdit", boolean), ("canRename", boolean),
            ("ownerLink", ref("ShareLink")),
        ], required: ["id", "title", "revision", "length", "text", "changeCount", "hasUnsavedChanges", "state", "created", "modified",
                      "access", "owner", "role", "canEdit", "canRename"])),
        ("AccessMode", ["type": "string", "enum": ["open", "editable", "locked", "private"]]),
        ("ShareLink", object([
            ("id", string), ("role", ["type": "string", "enum": ["owner", "editor", "viewer"]]), ("token", string),
            ("created", number), ("expires", ["type": ["number", "null"]]), ("revoked", boolean),
        ], required: ["id", "role", "created", "expires", "revoked"])),
        ("Access", object([
            ("access", ref("AccessMode")), ("owner", nullableString),
            ("members", array(object([("session", string), ("name", nullableString),
                                      ("role", ["type": "string", "enum": ["editor", "viewer"]])], required: ["session", "name", "role"]))),
            ("links", array(ref("ShareLink"))),
        ], required: ["access", "owner", "members", "links"])),
        ("EditResult", object([
            ("revision", nonNegative), ("ops", ref("Operation")), ("selection", ["oneOf": [ref("Selection"), ["type": "null"]]]),
        ], required: ["revision", "ops", "selection"])),
        ("Change", object([
            ("revision", nonNegative), ("ops", ref("Operation")), ("session", nullableString),
            ("kind", ["type": "string", "enum": ["edit", "undo", "redo"]]),
            ("actionName", string), ("time", number),
            ("reverts", ref("RevertedGroup")), ("partial", boolean), ("notReverted", nonNegative),
        ], required: ["revision", "ops", "session", "kind", "actionName"])),
        ("RevertedGroup", object([
            ("session", nullableString), ("group", ["type": "integer", "minimum": 1]),
        ], required: ["session", "group"])),
        ("HistoryEntry", object([
            ("id", ["type": "integer", "minimum": 1]),
            ("actionName", string), ("revision", nonNegative), ("session", nullableString),
            ("time", ["type": "number", "description": "When its latest change was made (for a redo entry: its undo), seconds since 1970"]),
            ("preview", ["oneOf": [["type": "null"], object([
                ("position", nonNegative), ("inserted", string), ("deleted", string),
                ("insertedCount", nonNegative), ("deletedCount", nonNegative),
            ], required: ["position", "inserted", "deleted", "insertedCount", "deletedCount"])],
                         "description": "What it did: the first 40 UTF-16 units it inserted and deleted, where, and how many in all; null past the newest 100 entries or once its changes left the log"]),
        ], required: ["id", "actionName", "revision", "session", "time", "preview"])),
        ("History", object([
            ("canUndo", boolean), ("canRedo", boolean),
            ("undoActionName", string), ("redoActionName", string),
            ("undoMenuItemTitle", string), ("redoMenuItemTitle", string),
            ("levelsOfUndo", nonNegative), ("ownLevelsOfUndo", nonNegative), ("groupingLevel", nonNegative),
            ("undoActionIsDiscardable", boolean), ("redoActionIsDiscardable", boolean), ("undoRegistrationEnabled", boolean),
            ("undoStack", array(ref("HistoryEntry"))), ("redoStack", array(ref("HistoryEntry"))),
        ], required: ["canUndo", "canRedo", "undoActionName", "redoActionName", "undoMenuItemTitle",
                      "redoMenuItemTitle", "levelsOfUndo", "ownLevelsOfUndo", "groupingLevel", "undoActionIsDiscardable",
                      "redoActionIsDiscardable", "undoRegistrationEnabled", "undoStack", "redoStack"])),
        ("UndoResult", object([
            ("revision", nonNegative), ("ops", ref("Operation")), ("actionName", string), ("session", nullableString),
            ("reverts", ref("RevertedGroup")), ("partial", boolean), ("notReverted", nonNegative),
            ("skipped", array(object([("actionName", string), ("revision", nonNegative)], required: ["actionName", "revision"]))),
            ("range", ref("Range")), ("history", ref("History")),
            ("selection", ["oneOf": [ref("Selection"), ["type": "null"]]]),
        ], required: ["revision", "ops", "actionName", "session", "reverts", "partial", "notReverted", "skipped", "range", "history"])),
        ("GroupingLevel", object([("groupingLevel", nonNegative)], required: ["groupingLevel"])),
        ("UndoRegistration", object([("undoRegistrationEnabled", boolean), ("disabledLevel", nonNegative)],
                                    required: ["undoRegistrationEnabled", "disabledLevel"])),
        ("Health", object([("status", string)], required: ["status"], additional: true)),
    ] + pasteboardComponents + actionComponents
}
