/// One parsed command line: the command word and its arguments. Arguments are separated by
/// spaces; an argument with spaces or quotes is written in double quotes with `\"` and `\\`.
public struct ProtocolRequest: Sendable, Equatable {
    public let command: String
    public let arguments: [String]

    /// The longest line a client may send, in bytes, and the most arguments it may carry.
    public static let maxLineBytes = 1024
    public static let maxArguments = 8

    /// Why a line could not be read as a command. `.notACommand` closes the connection: the peer
    /// is not speaking this protocol (binary junk, an HTTP request).
    public enum Rejection: Error, Sendable, Equatable {
        case empty
        case tooLong
        case notACommand(String)
        case malformed(String)
    }

    /// Parses one line (without its newline; a `\r` before it is tolerated).
    public static func parse(_ bytes: ArraySlice<UInt8>) -> Result<ProtocolRequest, Rejection> {
        var line = bytes
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        // The limit is on the line without its terminator ("\n" or "\r\n"), so it is checked after
        // the "\r" is gone: a maximal line from a CRLF client is a valid line.
        guard line.count <= maxLineBytes else { return .failure(.tooLong) }
        guard let text = String(validating: line, as: UTF8.self) else { return .failure(.notACommand("not UTF-8 text")) }
        if text.unicodeScalars.contains(where: ProtocolText.isRequestControl) {
            return .failure(.notACommand("control characters in a command line"))
        }
        // Words are cut by Unicode scalars, not by Characters: a Character is a grapheme cluster,
        // so a space or quote followed by a combining mark (" \u{301}") would be one Character
        // that equals neither and the separator or quote would go unseen. The combining mark
        // belongs to the text after the separator or quote.
        var words: [String] = []
        var current = String.UnicodeScalarView()
        var inWord = false
        var quoted = false
        var escaped = false
        // A quoted argument ends its word: `"a"b` is refused as `a"b"` is, not read as `ab`.
        var justClosed = false
        func endWord() {
            words.append(String(current))
            current = String.UnicodeScalarView()
            inWord = false
        }
        for scalar in text.unicodeScalars {
            if justClosed {
                justClosed = false
                guard scalar == " " else { return .failure(.malformed("a quote inside a word")) }
            }
            if escaped {
                current.append(scalar)
                escaped = false
            } else if quoted {
                if scalar == "\\" {
                    escaped = true
                } else if scalar == "\"" {
                    quoted = false
                    justClosed = true
                } else {
                    current.append(scalar)
                }
            } else if scalar == " " {
                if inWord { endWord() }
            } else if scalar == "\"" {
                guard !inWord else { return .failure(.malformed("a quote inside a word")) }
                quoted = true
                inWord = true
            } else {
                current.append(scalar)
                inWord = true
            }
        }
        if quoted || escaped { return .failure(.malformed("an unterminated quoted argument")) }
        if inWord { endWord() }
        guard let command = words.first else { return .failure(.empty) }
        // Commands are ASCII words; anything else (a path, binary) is another protocol, and so is
        // an HTTP request line ("GET / HTTP/1.1").
        let isWord = command.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }
        guard isWord, command.count <= 32, !(words.count >= 3 && words[words.count - 1].hasPrefix("HTTP/")) else {
            return .failure(.notACommand("'\(ProtocolText.sanitized(String(command.prefix(32))))' is not a Soundtrace command"))
        }
        let arguments = Array(words.dropFirst())
        guard arguments.count <= maxArguments else { return .failure(.malformed("more than \(maxArguments) arguments")) }
        return .success(ProtocolRequest(command: command, arguments: arguments))
    }

    /// Looks the command up and checks its argument count and the client's permission, before
    /// anything runs.
    public func check(permission: ProtocolPermission) -> Result<ProtocolCommand, ProtocolError> {
        guard let entry = ProtocolCommand.named(command) else {
            return .failure(.unknown(command: command))
        }
        guard permission >= entry.permission else {
            return .failure(
                ProtocolError(.permission, command: command, "this connection may only read; present the token first (`token SECRET`)"))
        }
        guard arguments.count >= entry.minArguments, arguments.count <= entry.maxArguments else {
            let wanted =
                entry.minArguments == entry.maxArguments ? "\(entry.minArguments)" : "\(entry.minArguments) to \(entry.maxArguments)"
            return .failure(
                ProtocolError(
                    .badArguments, command: command,
                    "\(command) takes \(wanted) argument\(entry.maxArguments == 1 ? "" : "s"), got \(arguments.count)"))
        }
        return .success(entry)
    }
}
