import Glibc
import SoundtraceCore
import SoundtraceFingerprint
import SoundtraceStore

/// Reading what the daemon needs before it serves: configuration, token, history database.
enum DaemonStartup {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The configuration file (the default path may be missing: built-in defaults), with the
    /// command line's overrides applied and the cross-key rules checked again.
    static func configuration(_ options: DaemonOptions) throws(Failure) -> DaemonConfiguration {
        let path = options.configPath ?? DaemonOptions.defaultConfigPath
        var configuration = DaemonConfiguration()
        var bytes: [UInt8]?
        do {
            bytes = try FileBytes.read(path: path, limit: 64 * 1024)
        } catch {
            switch error {
            case let .system(code, _) where code == ENOENT && options.configPath == nil:
                DaemonLog.info("no configuration file at \(path); using the built-in defaults")
            case let .system(_, reason):
                throw Failure(
                    description:
                        "cannot read configuration \(path): \(reason)\(options.configPath == nil ? "" : "; check the --config path")")
            case .tooLarge:
                throw Failure(description: "\(path): is larger than a configuration file can be (64 KiB)")
            }
        }
        if let bytes {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw Failure(description: "\(path): is not UTF-8 text; save it as plain UTF-8")
            }
            do {
                configuration = try DaemonConfiguration.parse(text, file: path)
            } catch {
                throw Failure(description: error.description)
            }
        }
        if let catalog = options.catalog { configuration.catalog = catalog }
        if let directory = options.stateDirectory { configuration.stateDirectory = directory }
        if let bind = options.bind { configuration.bind = bind }  // checked by DaemonOptions.parse
        if let port = options.port { configuration.port = port }
        if let device = options.device { configuration.device = device }
        if options.noGPIO { configuration.gpio = false }
        do {
            // A rule broken by --bind is the command line's as much as the file's: name both.
            let source = options.configPath ?? path
            try configuration.validate(file: options.bind.map { "\(source) with --bind \($0)" } ?? source)
        } catch {
            throw Failure(description: error.description)
        }
        return configuration
    }

    /// The LAN token from `token_file`: one line without spaces, strong enough that guessing it
    /// over the LAN is hopeless (`TokenStrength`).
    static func token(_ configuration: DaemonConfiguration) throws(Failure) -> String? {
        guard let path = configuration.tokenFile else { return nil }
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path: path, limit: 4096)
        } catch {
            switch error {
            case let .system(_, reason): throw Failure(description: "cannot read token_file \(path): \(reason)")
            case .tooLarge: throw Failure(description: "token_file \(path) is larger than a token can be (4 KiB)")
            }
        }
        var text = String(decoding: bytes, as: UTF8.self)
        while let last = text.last, last == "\n" || last == "\r\n" || last == " " { text.removeLast() }
        let create = "create one with `head -c 24 /dev/urandom | base64 > \(path)`"
        guard !text.isEmpty, !text.contains(where: { $0 == " " || $0 == "\n" || $0 == "\t" }) else {
            throw Failure(description: "token_file \(path) must hold one token without spaces; \(create)")
        }
        let bits = TokenStrength.estimatedBits(text)
        guard bits >= TokenStrength.minimumBits else {
            throw Failure(
                description:
                    "the token in token_file \(path) is too weak to guess-proof the LAN port (about \(bits) bits, at least \(TokenStrength.minimumBits) needed, e.g. 26 random letters and digits); \(create)"
            )
        }
        return text
    }

    /// Opens the history, or says why not: the daemon still serves, without history.
    static func history(_ configuration: DaemonConfiguration) -> (HistoryStore?, String?) {
        let path = configuration.stateDirectory + "/history.db"
        do {
            let (store, report) = try HistoryStore.open(path: path)
            if report.movedAside != nil || report.upgradedFrom != nil || report.createdFresh {
                DaemonLog.info(report.description)
            }
            return (store, nil)
        } catch {
            DaemonLog.error("history unavailable: \(error)")
            return (nil, error.description)
        }
    }
}
