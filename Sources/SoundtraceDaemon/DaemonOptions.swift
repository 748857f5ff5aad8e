import SoundtraceCore

/// `soundtraced`'s command line: flags that override the configuration file, for development,
/// tests and `--version`/`--help`.
struct DaemonOptions: Equatable {
    var configPath: String?
    var catalog: String?
    var stateDirectory: String?
    var bind: String?
    var port: Int?
    var device: String?
    var noGPIO = false
    var checkHardware = false
    var showVersion = false
    var showHelp = false

    static let defaultConfigPath = "/etc/soundtrace/soundtraced.conf"

    static let usage = """
        usage: soundtraced [--config PATH] [--catalog PATH] [--state-dir DIR] [--bind ADDR] [--port N]
                           [--device PCM] [--no-gpio] [--check-hardware] [--version] [--help]

        The Soundtrace appliance daemon: listens on the button or the line protocol, recognizes
        recordings of its catalog, keeps the history. Flags override the configuration file
        (default \(defaultConfigPath); see soundtraced(8)).

          --config PATH     configuration file (a missing default file means built-in defaults)
          --catalog PATH    catalog file
          --state-dir DIR   folder for the history database
          --bind ADDR       address for the protocol (loopback by default; other addresses need token_file)
          --port N          TCP port (0 picks a free one, reported in the log)
          --device PCM      ALSA capture device
          --no-gpio         no GPIO: show state on the console, Enter on a terminal acts as the button
          --check-hardware  check the kiosk step by step and exit: light each LED, sound the buzzer, wait
                            20 s for a button press, record 3 s and report the level (status 1 if a step failed)
          --version         print the version
          -h, --help        show this help
        Signals: HUP reloads the catalog, TERM and INT stop cleanly.
        """

    struct Invalid: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    static func parse(_ arguments: [String]) throws(Invalid) -> DaemonOptions {
        var options = DaemonOptions()
        var index = 0
        func value(_ flag: String) throws(Invalid) -> String {
            index += 1
            guard index < arguments.count, !arguments[index].isEmpty else { throw Invalid(description: "\(flag) needs a value") }
            // `--state-dir --no-gpio` forgot the folder; no value of these options starts with "--".
            guard !arguments[index].hasPrefix("--") else {
                throw Invalid(description: "\(flag) needs a value, not the option \(arguments[index])")
            }
            return arguments[index]
        }
        func once<T>(_ current: T?, _ flag: String) throws(Invalid) {
            if current != nil { throw Invalid(description: "\(flag) was given twice") }
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--config":
                try once(options.configPath, argument)
                options.configPath = try value(argument)
            case "--catalog":
                try once(options.catalog, argument)
                options.catalog = try value(argument)
            case "--state-dir":
                try once(options.stateDirectory, argument)
                options.stateDirectory = try value(argument)
            case "--bind":
                try once(options.bind, argument)
                let bind = try value(argument)
                guard DaemonConfiguration.isValidBindAddress(bind) else {
                    throw Invalid(description: "--bind must be an IPv4 address, ::1, :: or localhost, got '\(bind)'")
                }
                options.bind = bind
            case "--port":
                try once(options.port, argument)
                let text = try value(argument)
                guard let port = Int(text), (0...65535).contains(port) else {
                    throw Invalid(description: "--port must be a whole number in 0–65535, got '\(text)'")
                }
                options.port = port
            case "--device":
                try once(options.device, argument)
                options.device = try value(argument)
            case "--no-gpio": options.noGPIO = true
            case "--check-hardware": options.checkHardware = true
            case "--version": options.showVersion = true
            case "-h", "--help": options.showHelp = true
            default:
                throw Invalid(description: "unknown argument '\(argument)'")
            }
            index += 1
        }
        return options
    }
}
