import CJansson

/// A JSON document as parsed by jansson: what the CLI reads (the catalog manifest). Objects with a
/// repeated key are refused by the parser, so an object is a plain dictionary.
enum JSONValue: Equatable, Sendable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    case null

    /// Why a text is not JSON, in jansson's words with the line and column.
    struct ParseError: Error, CustomStringConvertible {
        let description: String
    }

    static func parse<Bytes: Collection>(_ bytes: Bytes) throws(ParseError) -> JSONValue where Bytes.Element == UInt8 {
        let parsed: Result<JSONValue, ParseError>? = bytes.withContiguousStorageIfAvailable { parse(buffer: $0) }
        switch parsed ?? Array(bytes).withUnsafeBufferPointer({ parse(buffer: $0) }) {
        case let .success(value): return value
        case let .failure(error): throw error
        }
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, ParseError> {
        var error = json_error_t()
        let root: UnsafeMutablePointer<json_t>?
        if let start = buffer.baseAddress {
            root = start.withMemoryRebound(to: CChar.self, capacity: buffer.count) { soundtrace_json_parse($0, buffer.count, &error) }
        } else {
            // An empty buffer may have no address, which jansson takes for a wrong call, not empty input.
            root = soundtrace_json_parse("", 0, &error)
        }
        guard let root else {
            let text = withUnsafeBytes(of: error.text) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            return .failure(ParseError(description: "line \(error.line), column \(error.column): \(text)"))
        }
        defer { soundtrace_json_release(root) }
        return .success(JSONValue(root))
    }

    /// The Swift value of a jansson value (which stays owned by the caller).
    private init(_ json: UnsafeMutablePointer<json_t>) {
        switch json.pointee.type {
        case JSON_OBJECT:
            var members: [String: JSONValue] = [:]
            var iterator = json_object_iter(json)
            while let current = iterator {
                let key = Self.text(json_object_iter_key(current), length: json_object_iter_key_len(current))
                if let value = json_object_iter_value(current) { members[key] = JSONValue(value) }
                iterator = json_object_iter_next(json, current)
            }
            self = .object(members)
        case JSON_ARRAY:
            self = .array((0..<json_array_size(json)).compactMap { json_array_get(json, $0).map(JSONValue.init) })
        case JSON_STRING:
            self = .string(Self.text(json_string_value(json), length: json_string_length(json)))
        case JSON_INTEGER:
            self = .integer(Int64(json_integer_value(json)))
        case JSON_REAL:
            self = .real(json_real_value(json))
        case JSON_TRUE:
            self = .bool(true)
        case JSON_FALSE:
            self = .bool(false)
        default:
            self = .null
        }
    }

    /// jansson's strings are valid UTF-8 (it refuses anything else) with their length known.
    private static func text(_ bytes: UnsafePointer<CChar>?, length: Int) -> String {
        guard let bytes else { return "" }
        return bytes.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }
}
