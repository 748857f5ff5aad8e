import CLinux
import Glibc
import SoundtraceCore
import SoundtracePlatform
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
        if options.showHelp { writeStdout(DaemonOptions.usage + "\n"); return 0 }
        if options.showVersion { writeStdout("soundtraced \(SoundtraceVersion.current) (protocol \(ProtocolText.version))\n"); return 0 }

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
        do {
            configuration = try DaemonStartup.configuration(options)
            token = try DaemonStartup.token(configuration)
            settings = try SessionSettings(windowSeconds: configuration.windowSeconds)
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
        let server: LineServer
        do {
            server = try LineServer(address: configuration.bind, port: configuration.port, limits: limits, greeting: ProtocolText.greeting)
        } catch {
            DaemonLog.error("\(error)")
            store?.close()
            return 1
        }

        if configuration.gpio {
            DaemonLog.warning("GPIO support is not built into this soundtraced yet; showing state on the console instead (set gpio = no or pass --no-gpio to silence this)")
        }
        let consoleButton = isatty(0) == 1
        let wake = WakeSignal()
        let device = configuration.device
        let environment = Appliance.Environment(
            device: device, settings: settings, token: token,
            makeSource: { ALSAAudioSource(device: $0) },
            monotonic: { Int64(MonotonicClock.nanoseconds() / 1_000_000) },
            wallClock: { wallClockMilliseconds() },
            timersChanged: { wake.signal() })
        let appliance = Appliance(environment: environment, channel: server, indicator: ConsoleIndicator(buttonHint: consoleButton),
                                  catalog: catalog, store: store, storeProblem: storeProblem)
        guard let serverThread = WorkerThread({
            server.run { event in
                switch event {
                case let .connected(client): appliance.clientConnected(client)
                case let .line(client, line): appliance.clientLine(client, line)
                case let .disconnected(client, _): appliance.clientDisconnected(client)
                }
            }
        }) else {
            DaemonLog.error("cannot start the protocol thread: the system is out of threads")
            return 1
        }

        let summary = appliance.statusSummary
        DaemonLog.info("serving protocol \(ProtocolText.version) on \(configuration.bind) port \(server.port); device \(device); \(summary)")
        notifier.ready(status: summary)
        appliance.locked { appliance.showIndicatorLocked(.idle, detail: "ready") }

        mainLoop(signalDescriptor: signalDescriptor, wake: wake, appliance: appliance, notifier: notifier,
                 consoleButton: consoleButton, catalogPath: configuration.catalog)

        notifier.stopping()
        DaemonLog.info("stopping")
        appliance.shutdown()
        server.stop()
        serverThread.join()
        appliance.locked {
            appliance.store?.close()
            appliance.store = nil
        }
        DaemonLog.info("stopped")
        return 0
    }

    private static func mainLoop(signalDescriptor: Int32, wake: WakeSignal, appliance: Appliance, notifier: SystemdNotifier,
                                 consoleButton: Bool, catalogPath: String) {
        let watchdogInterval = notifier.watchdogIntervalMilliseconds.map(Int64.init)
        var nextWatchdog = watchdogInterval.map { now() + $0 }
        var watchStdin = consoleButton
        var input = [UInt8](repeating: 0, count: 256)
        if let watchdogInterval { notifier.watchdog(); nextWatchdog = now() + watchdogInterval }
        while true {
            var due = [nextWatchdog, appliance.nextTimerDue].compactMap { $0 }.min()
            let timeout: Int32 = due.map { Int32(clamping: max(0, $0 - now())) } ?? -1
            var fds = [pollfd(fd: signalDescriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: watchStdin ? 0 : -1, events: Int16(POLLIN), revents: 0)]
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
                        appliance.replaceCatalog(CatalogSlot.load(path: catalogPath))
                    default:
                        DaemonLog.info("signal \(info.ssi_signo): shutting down")
                        return
                    }
                }
            }
            if fds[2].revents != 0 {
                let count = read(0, &input, input.count)
                if count <= 0 {
                    watchStdin = false
                } else {
                    for _ in 0..<input.prefix(count).filter({ $0 == UInt8(ascii: "\n") }).count { appliance.buttonPressed() }
                }
            }
            let current = now()
            if let next = nextWatchdog, let interval = watchdogInterval, current >= next {
                notifier.watchdog()
                nextWatchdog = current + interval
            }
            due = appliance.nextTimerDue
            if let due, current >= due { appliance.fireTimers() }
        }
    }

    private static func now() -> Int64 { Int64(MonotonicClock.nanoseconds() / 1_000_000) }

    private static func wallClockMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    private static func writeStdout(_ text: String) { let b = Array(text.utf8); _ = b.withUnsafeBytes { write(1, $0.baseAddress, $0.count) } }
    private static func writeStderr(_ text: String) { let b = Array(text.utf8); _ = b.withUnsafeBytes { write(2, $0.baseAddress, $0.count) } }
}
