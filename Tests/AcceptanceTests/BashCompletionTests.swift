import Foundation
import SoundtraceTestSupport
import Testing

/// The bash completion the package installs (deploy/bash-completion/soundtrace), sourced into a
/// real bash and asked to complete, with the built `soundtrace` first on PATH.
@Suite struct BashCompletionTests {
    static let script = Microphones.root + "/deploy/bash-completion/soundtrace"
    static let binary = BuiltProducts.path("soundtrace", packageRoot: Microphones.root)

    /// What bash offers after the words typed so far (the last one is being completed).
    static func complete(_ words: [String]) throws -> [String] {
        let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let program = """
            cd '\(Microphones.root)' || exit 9
            source '\(script)' || exit 8
            COMP_WORDS=(\(quoted)); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
            _soundtrace
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let folder = (binary as NSString).deletingLastPathComponent
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = folder + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let (status, output) = try SystemTool.run(["bash", "--norc", "--noprofile", "-c", program], environment: environment)
        guard status == 0 else { throw TestFailure("bash failed (\(status)): \(output)") }
        return output.split(separator: "\n").map(String.init)
    }

    @Test func completesCommandsSubcommandsFilesAndRecordingIds() throws {
        #expect(try Self.complete(["soundtrace", "st"]) == ["status"])
        #expect(try Self.complete(["soundtrace", "fav"]) == ["favorite", "favorites"])
        #expect(try Self.complete(["soundtrace", "catalog", ""]) == ["build", "verify", "list", "show", "add", "remove"])
        #expect(try Self.complete(["soundtrace", "delete", "--y"]) == ["--yes"])
        #expect(try Self.complete(["soundtrace", "match", "--catalog", "catalog/soundt"]) == ["catalog/soundtrace.catalog"])
        #expect(try Self.complete(["soundtrace", "explain", "catalog/audio/harbor"]) == ["catalog/audio/harbor-lights-piano.wav"])
        // An option's value is not mistaken for the command.
        #expect(try Self.complete(["soundtrace", "--port", "6680", "pi"]) == ["ping"])
        // Ids come from the catalog file named on the line (here the bundled one).
        let ids = try Self.complete(["soundtrace", "catalog", "--catalog", "catalog/soundtrace.catalog", "remove", "n"])
        #expect(Set(ids) == ["northern-glass-strings", "neon-cartography-synth"])
    }

    /// Every long option a command's --help lists is offered after `--`, and nothing else: the
    /// script's tables cannot fall behind the CLI.
    @Test(arguments: [
        "status", "listen", "cancel", "watch", "session", "history", "show", "share", "delete", "favorite",
        "unfavorite", "favorites", "catalog", "reference", "guide", "ping", "commands", "match", "explain",
        "catalog build", "catalog verify", "catalog list", "catalog show", "catalog add", "catalog remove"
    ])
    func offersExactlyTheOptionsOfEachCommandsHelp(command: String) throws {
        let words = command.split(separator: " ").map(String.init)
        let (status, help) = try SystemTool.run([Self.binary] + words + ["--help"])
        #expect(status == 0)
        let offered = try Self.complete(["soundtrace"] + words + ["--"])
        #expect(Set(offered) == Self.longOptions(inHelp: help), "\(command)")
        #expect(offered.count == Set(offered).count)
    }

    /// The long options of a help text: the option columns of its lines that start with a dash
    /// ("-h, --help", "--catalog PATH", and a second option on the same line).
    static func longOptions(inHelp help: String) -> Set<String> {
        var options = Set<String>()
        for line in help.split(separator: "\n") {
            let trimmed = line.drop(while: { $0 == " " })
            guard trimmed.hasPrefix("-") else { continue }
            let columns = trimmed.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            for (index, column) in columns.enumerated() where index == 0 || (column.hasPrefix("--") && index < columns.count - 1) {
                for token in column.split(whereSeparator: { $0 == " " || $0 == "," }) where token.hasPrefix("--") {
                    options.insert(String(token))
                }
            }
        }
        return options
    }
}
