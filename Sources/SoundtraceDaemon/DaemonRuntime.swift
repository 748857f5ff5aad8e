import CLinux
import Glibc
import SoundtraceClock
import SoundtraceCore
import SoundtracePlatform
import SoundtraceProtocol
import SoundtraceStore

/// `soundtraced` from start to stop: configuration, history, catalog, protocol server, readiness,
/// then a main loop that sleeps in `poll` until a signal, the console button, a delayed protocol
/// answer or the watchdog needs it; no timer runs while idle except the watchdog ping.
public enum DaemonRuntime {
    /// Runs the daemon with the command line `arguments` (without the program name); returns the exit status.
    public static func run(_ arguments: [String]) -> Int32 {
        let options: DaemonOptions
        do {
            options = try DaemonOptions.parse(arguments)
        } catch {
            writeStderr("soundtraced: \(error)\n\n\(DaemonOptions.usage)\n")
            return 2
        }
        if options.showHelp { return printed(DaemonOptions.usage + "\n") }
        if options.showVersion { return printed("soundtraced \(SoundtraceVersion.current) (protocol \(ProtocolText.version))\n") }
        if options.checkHardware { return checkHardware(options) }

        // Signals are taken through a signalfd; they must be blocked before any thread starts so
        // that every thread inherits the mask and none takes them the default way.
        var signals = sigset_t()
        sigemptyset(&signals)
        for number in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&signals, number) }
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        signal(SIGPIPE, SIG_IGN)
        let signalDescriptor = signalfd(-1, &signals, Int32(SFD_CLOEXEC) | Int32(SFD_NONBLOCK))
        guard signalDescriptor >= 0 else {
            DaemonLog.error("cannot receive signals: \(String(cString: strerror(errno)))")
            return 1
        }
        defer { close(signalDescriptor) }

        let configuration: DaemonConfiguration
        let token: String?
        let settings: SessionSettings
        let fleet: (link: FleetLink, client: MosquittoClient)?
        do {
            configuration = try DaemonStartup.configuration(options)
            token = try DaemonStartup.token(configuration)
            settings = try SessionSettings(windowSeconds: configuration.windowSeconds)
            fleet = try FleetStartup.link(configuration.mqtt)
        } catch {
            DaemonLog.error("\(error)")
            return 1
        }
        let notifier = SystemdNotifier()
        let (store, storeProblem) = DaemonStartup.history(configuration)
        let catalog = CatalogSlot.load(path: configuration.catalog)
        if let problem = catalog.problem {
            DaemonLog.error("no usable catalog (serving history and the guide; listen explains): \(problem)")
        }
        var limits = LineServer.Limits()
        limits.maxClients = configuration.maxClients
        limits.idleTimeoutMilliseconds = configuration.idleTimeoutSeconds * 1000
        limits.lineTimeoutMilliseconds = configuration.lineTimeoutSeconds * 1000
        let server: LineServer
        do {
            server = try LineServer(address: configuration.bind, port: configuration.port, limits: limits, greeting: ProtocolText.greeting)
        } catch {
            DaemonLog.error("\(error)")
            store?.close()
            return 1
        }

        let wake = WakeSignal()
        // A log summary that became pending re-arms the main loop's timeout (see LogGate).
        DaemonLog.gate.setWhenPending { wake.signal() }
        let (panel, panelProblem) = openPanel(configuration, wake: wake)
        defer { panel.close() }
        let device = configuration.device
        let environment = Appliance.Environment(
            device: device, settings: settings, token: token,
            makeSource: { ALSAAudioSource(device: $0) },
            clock: SystemTime(),
            timersChanged: { wake.signal() })
        let appliance = Appliance(
            environment: environment, channel: server, indicator: panel.indicator,
            catalog: catalog, store: store, storeProblem: storeProblem)
        let panelKind = panel is LinesPanel ? "gpio" : "console"
        appliance.state.withLock {
            $0.panelKind = panelKind
            $0.panelProblem = panelProblem
        }
        guard
            let serverThread = WorkerThread({
                server.run { event in
                    switch event {
                    case let .connected(client): appliance.clientConnected(client)
                    case let .line(client, line): appliance.clientLine(client, line)
                    case let .disconnected(client, _): appliance.clientDisconnected(client)
                    }
                }
            })
        else {
            DaemonLog.error("cannot start the protocol thread: the system is out of threads")
            return 1
        }

        if let fleet {
            appliance.attachFleet(fleet.link)
            if !fleet.link.start(client: fleet.client, command: { appliance.fleetCommand($0) }) {
                DaemonLog.error("cannot start the MQTT thread: the system is out of threads; serving without MQTT")
            }
        }

        let summary = appliance.statusSummary()
        DaemonLog.info(
            "serving protocol \(ProtocolText.version) on \(configuration.bind) port \(server.port); device \(device); \(summary)")
        notifier.ready(status: summary)
        appliance.showIndicator(.idle, detail: "ready")
        panel.becomeReady(at: now())
        if let loaded = catalog.catalog { CatalogContentCheck.start(loaded, appliance: appliance) }

        mainLoop(
            signalDescriptor: signalDescriptor, wake: wake, appliance: appliance, panel: panel, notifier: notifier,
            catalogPath: configuration.catalog)

        notifier.stopping()
        // What was left out comes first, and the last lines start a fresh window.
        DaemonLog.flush()
        DaemonLog.info("stopping")
        appliance.shutdown()
        // After the session's end was posted: the link sends it, then `offline`.
        fleet?.link.stop()
        server.stop()
        serverThread.join()
        appliance.state.withLock {
            $0.store?.close()
            $0.store = nil
        }
        DaemonLog.info("stopped")
        DaemonLog.flush()
        return 0
    }

    /// The GPIO panel when `gpio = yes` and its lines open; otherwise the console panel. A GPIO
    /// failure is logged with its reason and the daemon serves on with the console panel.
    private static func openPanel(_ configuration: DaemonConfiguration, wake: WakeSignal) -> (Panel, problem: String?) {
        let consoleButton = isatty(0) == 1
        guard configuration.gpio else { return (ConsolePanel(consoleButton: consoleButton, wake: { wake.signal() }), nil) }
        do {
            let lines = try GPIOPanelLines.open(configuration.lines)
            let placements = lines.placements.map { "\($0.role) \($0.place)" }.joined(separator: ", ")
            DaemonLog.info(
                "GPIO panel (libgpiod \(GPIODLibrary.version)): \(placements); button debounced by \(lines.debouncedEdges ? "the kernel" : "soundtraced")\(configuration.muted ? "; buzzer muted" : "")"
            )
            return (LinesPanel(lines: lines, muted: configuration.muted, wake: { wake.signal() }), nil)
        } catch {
            DaemonLog.error(
                "GPIO panel unavailable, showing state on the console instead (protocol and history work as usual; `soundtraced --check-hardware` tests the wiring): \(error)"
            )
            return (ConsolePanel(consoleButton: consoleButton, wake: { wake.signal() }), error.description)
        }
    }

    private static func mainLoop(
        signalDescriptor: Int32, wake: WakeSignal, appliance: Appliance, panel: Panel,
        notifier: SystemdNotifier, catalogPath: String
    ) {
        let watchdogInterval = notifier.watchdogIntervalMilliseconds.map(Int64.init)
        var nextWatchdog = watchdogInterval.map { now() + $0 }
        if let watchdogInterval {
            notifier.watchdog()
            nextWatchdog = now() + watchdogInterval
        }
        while true {
            // The log's deadline is set only while a summary of left-out lines is pending.
            var due = [nextWatchdog, appliance.nextTimerDue(), panel.deadline, DaemonLog.gate.deadline].compactMap { $0 }.min()
            let timeout: Int32 = due.map { Int32(clamping: max(0, $0 - now())) } ?? -1
            var fds = [
                pollfd(fd: signalDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: panel.pollDescriptor, events: Int16(POLLIN), revents: 0)
            ]
            if poll(&fds, nfds_t(fds.count), timeout) < 0, errno != EINTR {
                DaemonLog.error("poll failed: \(String(cString: strerror(errno)))")
                return
            }
            if fds[1].revents != 0 { wake.consume() }
            if fds[0].revents != 0 {
                var info = signalfd_siginfo()
                while read(signalDescriptor, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
                    switch Int32(info.ssi_signo) {
                    case SIGHUP:
                        DaemonLog.info("SIGHUP: reloading the catalog from \(catalogPath)")
                        // Loading takes a while and happens outside the appliance's lock.
                        let slot = CatalogSlot.load(path: catalogPath)
                        appliance.replaceCatalog(slot)
                        if let loaded = slot.catalog { CatalogContentCheck.start(loaded, appliance: appliance) }
                    default:
                        DaemonLog.info("signal \(info.ssi_signo): shutting down")
                        return
                    }
                }
            }
            // The panel runs every turn: it takes the appliance's state changes (which woke the
            // loop), reads the button when readable and plays what is due.
            for gesture in panel.service(now: now(), readable: fds[2].revents != 0) {
                switch gesture {
                case .shortPress: appliance.buttonPressed()
                case .hold: appliance.toggleCalmMode()
                }
            }
            DaemonLog.gate.flushIfDue()
            let current = now()
            if let next = nextWatchdog, let interval = watchdogInterval, current >= next {
                notifier.watchdog()
                nextWatchdog = current + interval
            }
            due = appliance.nextTimerDue()
            if let due, current >= due { appliance.fireTimers() }
        }
    }

    /// `--check-hardware` on the real lines and capture device.
    private static func checkHardware(_ options: DaemonOptions) -> Int32 {
        let configuration: DaemonConfiguration
        do {
            configuration = try DaemonStartup.configuration(options)
        } catch {
            DaemonLog.error("\(error)")
            return 1
        }
        let report = DescriptorOutput(descriptor: STDOUT_FILENO)
        let environment = HardwareCheck.Environment(
            openLines: { names throws(GPIOFault) in try GPIOPanelLines.open(names) },
            makeSource: { ALSAAudioSource(device: $0) },
            clock: SystemTime(),
            wait: { descriptor, milliseconds in
                var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&entry, 1, Int32(clamping: milliseconds))
            },
            print: { report.write($0) })
        let status = HardwareCheck(configuration: configuration, environment: environment).run()
        // A report lost to a full disk (`--check-hardware > report.txt`) must not end as a pass.
        guard case let .failed(code) = report.ended else { return status }
        return outputFailed(code, status: status, advice: " and run the check again")
    }

    /// Exit status 7: what was asked for could not be written to standard output (a full disk, an
    /// I/O error), said on standard error; a status that already says a failure is kept. A reader
    /// that went away (EPIPE) is no failure.
    private static let outputFailedStatus: Int32 = 7

    private static func printed(_ text: String) -> Int32 {
        let code = DescriptorOutput.writeAll(text, to: STDOUT_FILENO)
        return code == 0 || code == EPIPE ? 0 : outputFailed(code, status: 0, advice: "")
    }

    private static func outputFailed(_ code: Int32, status: Int32, advice: String) -> Int32 {
        writeStderr(
            "soundtraced: could not write standard output (\(String(cString: strerror(code)))): what it printed is incomplete; free space, or send the output elsewhere\(advice)\n"
        )
        return status == 0 ? outputFailedStatus : status
    }

    private static func now() -> Int64 { SystemClock.monotonicMilliseconds() }

    private static func writeStderr(_ text: String) {
        _ = DescriptorOutput.writeAll(text, to: STDERR_FILENO)
    }
}
