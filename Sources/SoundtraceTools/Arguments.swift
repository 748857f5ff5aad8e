/// A small command-line reader: options with values, flags and positional arguments, validated
/// before any work starts.
struct Arguments {
    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    private(set) var positional: [String] = []
    private var options: [String: String] = [:]
    private var flags: Set<String> = []

    /// Parses `args` knowing which options take a value and which are flags; anything else is an error.
    init(_ args: [String], valueOptions: Set<String>, flagOptions: Set<String>) throws(UsageError) {
        var i = 0
        var onlyPositional = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if onlyPositional || !arg.hasPrefix("-") || arg == "-" {
                positional.append(arg)
                continue
            }
            if arg == "--" {
                onlyPositional = true
                continue
            }
            var name = arg
            var inlineValue: String? = nil
            if let eq = arg.firstIndex(of: "=") {
                name = String(arg[..<eq])
                inlineValue = String(arg[arg.index(after: eq)...])
            }
            if valueOptions.contains(name) {
                guard options[name] == nil else { throw UsageError(description: "\(name) was given twice") }
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard i < args.count else { throw UsageError(description: "\(name) needs a value") }
                    value = args[i]
                    i += 1
                    // `--catalog --json` forgot the value; the option after it is not one.
                    if valueOptions.contains(value) || flagOptions.contains(value) {
                        throw UsageError(description: "\(name) needs a value, not the option \(value)")
                    }
                }
                guard !value.isEmpty else { throw UsageError(description: "\(name) needs a value, not an empty one") }
                options[name] = value
            } else if flagOptions.contains(name), inlineValue == nil {
                guard !flags.contains(name) else { throw UsageError(description: "\(name) was given twice") }
                flags.insert(name)
            } else {
                throw UsageError(description: "unknown option \(arg)")
            }
        }
    }

    func value(_ name: String) -> String? { options[name] }
    func flag(_ name: String) -> Bool { flags.contains(name) }
}
