/// Licence identifiers as SPDX writes them (spdx.org/licenses), for `catalog add`: the catalog
/// tells every visitor under which terms a recording may be played, so a typo or a made-up name
/// ("CC-BY" without a version) must not slip in. Accepted: a listed identifier (the ones that
/// recordings, scores and their software are usually published under; matched case-sensitively, as
/// SPDX asks, with a hint when only the case differs), an SPDX expression of them (AND, OR, WITH
/// an exception, parentheses, a trailing `+`), or `LicenseRef-…` for terms of one's own.
enum SPDXLicense {
    static let identifiers: Set<String> = [
        "CC0-1.0", "CC-PDDC", "PDDL-1.0", "Unlicense",
        "CC-BY-1.0", "CC-BY-2.0", "CC-BY-2.5", "CC-BY-3.0", "CC-BY-4.0",
        "CC-BY-SA-1.0", "CC-BY-SA-2.0", "CC-BY-SA-2.5", "CC-BY-SA-3.0", "CC-BY-SA-4.0",
        "CC-BY-NC-1.0", "CC-BY-NC-2.0", "CC-BY-NC-2.5", "CC-BY-NC-3.0", "CC-BY-NC-4.0",
        "CC-BY-NC-SA-1.0", "CC-BY-NC-SA-2.0", "CC-BY-NC-SA-2.5", "CC-BY-NC-SA-3.0", "CC-BY-NC-SA-4.0",
        "CC-BY-ND-1.0", "CC-BY-ND-2.0", "CC-BY-ND-2.5", "CC-BY-ND-3.0", "CC-BY-ND-4.0",
        "CC-BY-NC-ND-1.0", "CC-BY-NC-ND-2.0", "CC-BY-NC-ND-2.5", "CC-BY-NC-ND-3.0", "CC-BY-NC-ND-4.0",
        "CC-BY-3.0-US", "CC-BY-SA-3.0-AT", "FAL-1.3", "ODbL-1.0", "OFL-1.1",
        "GPL-2.0-only", "GPL-2.0-or-later", "GPL-3.0-only", "GPL-3.0-or-later",
        "LGPL-2.1-only", "LGPL-2.1-or-later", "LGPL-3.0-only", "LGPL-3.0-or-later",
        "AGPL-3.0-only", "AGPL-3.0-or-later", "MPL-2.0", "Apache-2.0", "MIT", "BSD-2-Clause",
        "BSD-3-Clause", "ISC", "Zlib", "Artistic-2.0", "WTFPL", "Beerware"
    ]
    static let exceptions: Set<String> = ["Classpath-exception-2.0", "Font-exception-2.0"]

    /// nil when `text` is a valid expression; otherwise what is wrong and how to fix it.
    static func problem(_ text: String) -> String? {
        var tokens: [String] = []
        var word = ""
        for character in text {
            if character == "(" || character == ")" || character == " " {
                if !word.isEmpty {
                    tokens.append(word)
                    word = ""
                }
                if character != " " { tokens.append(String(character)) }
            } else {
                word.append(character)
            }
        }
        if !word.isEmpty { tokens.append(word) }
        guard !tokens.isEmpty else { return "no licence given; use an SPDX identifier such as CC-BY-4.0" }
        var parser = Parser(tokens: tokens)
        if let problem = parser.expression() { return problem }
        return parser.position == tokens.count ? nil : "has '\(tokens[parser.position])' where an operator (AND, OR) was expected"
    }

    private struct Parser {
        let tokens: [String]
        var position = 0

        mutating func expression() -> String? {
            if let problem = term() { return problem }
            while position < tokens.count, tokens[position] == "AND" || tokens[position] == "OR" {
                position += 1
                if let problem = term() { return problem }
            }
            return nil
        }

        mutating func term() -> String? {
            guard position < tokens.count else { return "ends where a licence identifier was expected" }
            let token = tokens[position]
            position += 1
            if token == "(" {
                if let problem = expression() { return problem }
                guard position < tokens.count, tokens[position] == ")" else { return "has an unclosed '('" }
                position += 1
                return nil
            }
            if let problem = identifierProblem(token) { return problem }
            if position < tokens.count, tokens[position] == "WITH" {
                position += 1
                guard position < tokens.count else { return "ends after WITH; name an exception such as Classpath-exception-2.0" }
                let exception = tokens[position]
                position += 1
                guard SPDXLicense.exceptions.contains(exception) else {
                    return "names the exception '\(exception)', which is not one SPDX lists here"
                }
            }
            return nil
        }

        func identifierProblem(_ token: String) -> String? {
            if token.hasPrefix("LicenseRef-") {
                let rest = token.dropFirst("LicenseRef-".count)
                let allowed = rest.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
                return !rest.isEmpty && allowed ? nil : "'\(token)': a LicenseRef- name takes only letters, digits, '.' and '-'"
            }
            let base = token.hasSuffix("+") ? String(token.dropLast()) : token
            if SPDXLicense.identifiers.contains(base) { return nil }
            if let match = SPDXLicense.identifiers.first(where: { $0.lowercased() == base.lowercased() }) {
                return "'\(token)' is written '\(match)' in SPDX"
            }
            let family = SPDXLicense.identifiers.filter { $0.lowercased().hasPrefix(base.lowercased() + "-") }.sorted()
            if !family.isEmpty {
                return "'\(token)' needs a version: one of \(family.prefix(6).joined(separator: ", "))"
            }
            return
                "'\(token)' is not an SPDX identifier known here (e.g. CC0-1.0, CC-BY-4.0, CC-BY-SA-4.0); for terms of your own use LicenseRef-NAME"
        }
    }
}
