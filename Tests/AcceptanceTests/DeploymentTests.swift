import Foundation
import Glibc
import SoundtraceTestSupport
import Testing

/// The deployment files: the hardened systemd unit, deploy/install.sh into a staging folder, and the
/// Debian package from deploy/build-deb.sh. They run the real tools (systemd-analyze, dpkg-deb,
/// dpkg-shlibdeps), which scripts/setup.sh installs; nothing here needs root or a running systemd.
@Suite struct DeploymentTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .path
    static let unit = root + "/deploy/soundtraced.service"

    // MARK: The unit

    /// README and DEPLOY.md state the rating (1.4): a change to the unit that loosens it fails here.
    @Test func theUnitsOverallExposureIsAtMostOnePointFour() throws {
        let run = try Command.run(["systemd-analyze", "security", "--offline=yes", "--no-pager", Self.unit])
        // The table lists each check; the last line is "→ Overall exposure level for NAME: 1.4 OK …".
        let line = try #require(
            run.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") },
            "no overall exposure in: \(run.stdout) \(run.stderr)")
        let number = try #require(
            line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) },
            "cannot read the exposure from '\(line)'")
        #expect(number <= 1.4, "\(run.stdout)")
        // The offline analysis also reports settings it could not parse.
        #expect(!run.stderr.contains("ignoring"), "\(run.stderr)")
    }

    /// The microphone and GPIO chips stay reachable: a private /dev would hide them.
    @Test(arguments: [
        "DevicePolicy=closed", "DeviceAllow=char-alsa rw", "DeviceAllow=char-gpiochip rw",
        "SupplementaryGroups=audio gpio", "CapabilityBoundingSet=", "Type=notify", "NotifyAccess=main",
        "User=soundtrace", "StateDirectory=soundtrace", "ConfigurationDirectory=soundtrace",
        "ExecStart=/usr/bin/soundtraced --config /etc/soundtrace/soundtraced.conf",
        "ExecReload=/bin/kill -HUP $MAINPID", "Restart=on-failure"
    ])
    func theUnitSets(_ setting: String) throws {
        let lines = try String(contentsOfFile: Self.unit, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.contains(setting))
    }

    @Test func theUnitHasAWatchdogAndNoPrivateDev() throws {
        let lines = try String(contentsOfFile: Self.unit, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(!lines.contains { $0.hasPrefix("PrivateDevices=") && !$0.hasSuffix("=no") })
        #expect(lines.contains { $0.hasPrefix("WatchdogSec=") })
    }

    /// `systemd-analyze verify` checks that ExecStart= and ExecReload= exist, so it runs against the
    /// staged install as its root (with the binaries' stand-ins), plus the host's target and slice
    /// units and `kill` that the unit refers to. It prints problems and still exits 0, so any output fails.
    @Test func theStagedUnitVerifies() throws {
        let stage = try Stage()
        let install = try stage.install()
        try #require(install.status == 0, "\(install.stderr)")
        let system = "/usr/lib/systemd/system"
        for name in try FileManager.default.contentsOfDirectory(atPath: system)
        where name.hasSuffix(".target") || name.hasSuffix(".slice") {
            try? FileManager.default.copyItem(atPath: "\(system)/\(name)", toPath: stage.destdir + system + "/" + name)
        }
        try FileManager.default.createDirectory(atPath: stage.destdir + "/bin", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "/bin/kill", toPath: stage.destdir + "/bin/kill")
        let run = try Command.run([
            "systemd-analyze", "verify", "--man=no", "--root=" + stage.destdir,
            system + "/soundtraced.service"
        ])
        #expect(run.status == 0)
        #expect(run.stdout.isEmpty && run.stderr.isEmpty, "\(run.stdout)\(run.stderr)")
    }

    @Test func theSysusersEntryCreatesTheUserAndTheGPIOGroup() throws {
        let stage = try Stage()
        let etc = stage.destdir + "/etc"
        try FileManager.default.createDirectory(atPath: etc, withIntermediateDirectories: true)
        // A root with Debian's audio group and no gpio group.
        try "root:x:0:0:root:/root:/bin/bash\n".write(toFile: etc + "/passwd", atomically: true, encoding: .utf8)
        try "root:x:0:\naudio:x:29:\n".write(toFile: etc + "/group", atomically: true, encoding: .utf8)
        let run = try Command.run(["systemd-sysusers", "--root=" + stage.destdir, Self.root + "/deploy/sysusers.d/soundtrace.conf"])
        #expect(run.status == 0, "\(run.stderr)")
        let passwd = try String(contentsOfFile: etc + "/passwd", encoding: .utf8)
        let group = try String(contentsOfFile: etc + "/group", encoding: .utf8)
        let user = try #require(passwd.split(separator: "\n").first { $0.hasPrefix("soundtrace:") })
        let fields = user.split(separator: ":", omittingEmptySubsequences: false)
        #expect((Int(fields[2]) ?? 0) > 0 && (Int(fields[2]) ?? 1000) < 1000, "a system user: \(user)")
        #expect(fields[6].hasSuffix("nologin"))
        #expect(group.contains("audio:x:29:soundtrace"))
        #expect(group.split(separator: "\n").contains { $0.hasPrefix("gpio:") && $0.hasSuffix(":soundtrace") })
    }

    // MARK: install.sh

    /// What a staged install holds, with its mode. The binaries are stand-ins: the script's job is
    /// where things go, not what the binaries do (the package test below uses the real ones).
    static let installed: [(path: String, mode: Int)] = [
        ("/usr/bin/soundtrace", 0o755),
        ("/usr/lib/systemd/system/soundtraced.service", 0o644), ("/usr/lib/sysusers.d/soundtrace.conf", 0o644),
        ("/etc/soundtrace/soundtraced.conf", 0o644), ("/usr/share/soundtrace/soundtrace.catalog", 0o644),
        ("/usr/lib/udev/rules.d/60-soundtrace-gpio.rules", 0o644),
        ("/usr/share/soundtrace/70-soundtrace-usb-mic.rules.template", 0o644),
        ("/usr/share/man/man8/soundtraced.8.gz", 0o644),
        ("/usr/share/bash-completion/completions/soundtrace", 0o644),
        ("/etc/soundtrace/token", 0o640)
    ]

    @Test func installStagesEveryFileWithSaneModes() throws {
        let stage = try Stage()
        let run = try stage.install()
        try #require(run.status == 0, "\(run.stderr)")
        var expected = Self.installed
        if FileManager.default.fileExists(atPath: Self.root + "/man/soundtrace.1") {
            expected.append(("/usr/share/man/man1/soundtrace.1.gz", 0o644))
        }
        for (path, mode) in expected {
            #expect(try stage.mode(path) == mode, "\(path)")
        }
        // The daemon is the one binary under another name: a relative link, whatever the root.
        #expect(try stage.linkTarget("/usr/bin/soundtraced") == "soundtrace")
        // Nothing else, and nothing writable by group or others (a link's own mode means nothing).
        let files = try stage.files()
        #expect(Set(files) == Set(expected.map(\.path) + ["/usr/bin/soundtraced"]), "\(files)")
        for path in try stage.all() where path != "/usr/bin/soundtraced" {
            #expect(try stage.mode(path) & 0o022 == 0, "\(path) is writable by group or others")
        }
        // Man pages are gzip files of the pages in man/.
        let page = try Data(contentsOf: URL(fileURLWithPath: stage.destdir + "/usr/share/man/man8/soundtraced.8.gz"))
        #expect(page.prefix(2) == Data([0x1f, 0x8b]))
        let unpacked = try Command.run(["gzip", "-dc", stage.destdir + "/usr/share/man/man8/soundtraced.8.gz"])
        #expect(unpacked.stdout == (try String(contentsOfFile: Self.root + "/man/soundtraced.8", encoding: .utf8)))
        // The shipped files are the repository's.
        for (installed, source) in [
            ("/usr/lib/systemd/system/soundtraced.service", "deploy/soundtraced.service"),
            ("/etc/soundtrace/soundtraced.conf", "deploy/soundtraced.conf")
        ] {
            #expect(FileManager.default.contentsEqual(atPath: stage.destdir + installed, andPath: Self.root + "/" + source))
        }
    }

    @Test func installMakesAStrongLANTokenForEachBoxAndKeepsIt() throws {
        let first = try Stage()
        try #require(try first.install().status == 0)
        let second = try Stage()
        try #require(try second.install().status == 0)
        let path = "/etc/soundtrace/token"
        let token = try String(contentsOfFile: first.destdir + path, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // 24 random bytes (192 bits, past the daemon's 128-bit bar), and not the same on two boxes.
        #expect(Data(base64Encoded: token)?.count == 24, "\(token)")
        #expect(
            try String(contentsOfFile: second.destdir + path, encoding: .utf8)
                != (try String(contentsOfFile: first.destdir + path, encoding: .utf8)))
        // Installing again keeps it (the fingerprint of every file, below, covers it too).
        try #require(try first.install().status == 0)
        #expect(try String(contentsOfFile: first.destdir + path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) == token)
    }

    @Test func installingAgainKeepsTheConfigurationAndChangesNothingElse() throws {
        let stage = try Stage()
        try #require(try stage.install().status == 0)
        let config = stage.destdir + "/etc/soundtrace/soundtraced.conf"
        let mine = "# edited on the box\nport = 6690\n"
        try mine.write(toFile: config, atomically: true, encoding: .utf8)
        let before = try stage.fingerprint()
        let again = try stage.install()
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try String(contentsOfFile: config, encoding: .utf8) == mine)
        #expect(again.stderr.contains("kept your"), "\(again.stderr)")
        #expect(try stage.fingerprint() == before)
    }

    @Test func installWithoutABuiltBinarySaysHowToBuildIt() throws {
        let stage = try Stage()
        try FileManager.default.removeItem(atPath: stage.binaries + "/soundtrace")
        let run = try stage.install()
        #expect(run.status != 0)
        #expect(run.stderr.contains("no built 'soundtrace'") && run.stderr.contains("scripts/swift-build-static.sh"), "\(run.stderr)")
        #expect(try stage.all().isEmpty, "a failed install leaves nothing behind")
    }

    /// A `soundtrace` from before the two programs became one binary would leave the service running
    /// the CLI with the daemon's options.
    @Test func installRefusesABinaryThatIsNotTheDaemonUnderItsName() throws {
        let stage = try Stage(multiCall: false)
        let run = try stage.install()
        #expect(run.status != 0)
        #expect(run.stderr.contains("does not run as the daemon when started as 'soundtraced'"), "\(run.stderr)")
        #expect(run.stderr.contains("printed 'soundtrace 0.0.0-stand-in'"), "\(run.stderr)")
        #expect(try stage.all().isEmpty, "a failed install leaves nothing behind")
    }

    // MARK: build-deb.sh

    @Test func buildDebWithoutTheBinaryFailsClearly() throws {
        let stage = try Stage()
        try FileManager.default.removeItem(atPath: stage.binaries + "/soundtrace")
        let run = try Command.run([Self.root + "/deploy/build-deb.sh", "--bin-dir", stage.binaries, "--out", stage.directory + "/out"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("no built 'soundtrace'"), "\(run.stderr)")
    }

    /// Builds the real package: the binary the deployed way, scripts/swift-build-static.sh (in .build/deb,
    /// minutes the first time), then checks its control data and contents.
    @Test(.timeLimit(.minutes(30))) func thePackageHasTheRightDependsFilesAndConffile() throws {
        let out = try Stage.temporaryDirectory("deb")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let build = try Command.run([Self.root + "/deploy/build-deb.sh", "--out", out])
        try #require(build.status == 0, "build-deb.sh failed:\n\(build.stderr.suffix(3000))")
        let deb = build.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(FileManager.default.fileExists(atPath: deb), "no package at '\(deb)'")

        func field(_ name: String) throws -> String {
            try Command.run(["dpkg-deb", "-f", deb, name]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try field("Package") == "soundtrace")
        #expect(
            try field("Architecture")
                == Command.run(["dpkg", "--print-architecture"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let depends = try field("Depends")
        let dependedOn = Set(
            depends.split(separator: ",").flatMap { $0.split(separator: "|") }
                .compactMap { $0.split(separator: " ").first.map(String.init) })

        // Contents: every installed file, man pages gzipped, the configuration as a conffile.
        let tree = out + "/tree"
        try #require(try Command.run(["dpkg-deb", "-x", deb, tree]).status == 0)
        // The LAN token is made on the box by postinst, never shipped: every box gets its own.
        for (path, _) in Self.installed where path != "/etc/soundtrace/token" {
            #expect(FileManager.default.fileExists(atPath: tree + path), "\(path) missing from the package")
        }
        #expect(!FileManager.default.fileExists(atPath: tree + "/etc/soundtrace/token"))
        if FileManager.default.fileExists(atPath: Self.root + "/man/soundtrace.1") {
            #expect(FileManager.default.fileExists(atPath: tree + "/usr/share/man/man1/soundtrace.1.gz"))
        }
        let control = out + "/control"
        try #require(try Command.run(["dpkg-deb", "-e", deb, control]).status == 0)
        #expect(try String(contentsOfFile: control + "/conffiles", encoding: .utf8) == "/etc/soundtrace/soundtraced.conf\n")
        for script in ["postinst", "prerm", "postrm"] {
            #expect(try Command.run(["sh", "-n", control + "/" + script]).status == 0, "\(script) is not valid sh")
        }
        let postinst = try String(contentsOfFile: control + "/postinst", encoding: .utf8)
        #expect(postinst.contains("systemd-sysusers") && postinst.contains("/run/systemd/system") && postinst.contains("udevadm"))
        #expect(postinst.contains("/dev/urandom") && postinst.contains("/etc/soundtrace/token"))

        // Version: the daemon's own ("soundtraced 0.1.0 (protocol 1)"), through the packaged link.
        #expect(try Stage.linkTarget(tree + "/usr/bin/soundtraced") == "soundtrace")
        let version = try Command.run([tree + "/usr/bin/soundtraced", "--version"]).stdout
        #expect(version.hasPrefix("soundtraced "), "\(version)")
        #expect(version.split(whereSeparator: \.isWhitespace).dropFirst().first.map(String.init) == (try field("Version")), "\(version)")
        #expect(try Command.run([tree + "/usr/bin/soundtrace", "--version"]).stdout.hasPrefix("soundtrace "))

        // Stripped as Debian does (no symbol table, no debug sections); what they held is beside the
        // package, and the binary names it.
        let sections = try Command.run(["objdump", "-h", tree + "/usr/bin/soundtrace"]).stdout
        #expect(!sections.contains(".debug_info") && !sections.contains(".symtab"), "\(sections)")
        #expect(sections.contains(".gnu_debuglink"), "\(sections)")
        let debugFile = String(deb.dropLast(".deb".count)) + ".debug"
        #expect(try Command.run(["objdump", "-h", debugFile]).stdout.contains(".debug_info"), "no debug information in \(debugFile)")
        // Both programs in one binary keep the package within issue 17's 12 MB (docs/DEPLOY.md).
        let installedSize = try #require(Int(try field("Installed-Size")))
        #expect(installedSize <= 12 * 1024, "Installed-Size \(installedSize) KiB")

        // Depends names the package of every library the binary loads, and no Swift runtime is loaded.
        for binary in ["soundtrace"] {
            let dump = try Command.run(["objdump", "-p", tree + "/usr/bin/" + binary]).stdout
            let needed = dump.split(separator: "\n").compactMap { line -> String? in
                let parts = line.split(separator: " ")
                return parts.count == 2 && parts[0] == "NEEDED" ? String(parts[1]) : nil
            }
            #expect(needed.contains("libc.so.6"))
            #expect(!needed.contains { $0.hasPrefix("libswift") || $0.hasPrefix("libFoundation") }, "\(binary): \(needed)")
            // The deployed build links GCC's C++ runtime in (scripts/swift-build-static.sh): ~0.8 MiB less RSS.
            #expect(!needed.contains { $0.hasPrefix("libstdc++") || $0.hasPrefix("libgcc_s") }, "\(binary): \(needed)")
            for soname in needed {
                let owner = try Self.package(owning: soname)
                #expect(dependedOn.contains(owner), "\(binary) loads \(soname) from \(owner), not in Depends: \(depends)")
            }
        }
        // Packed relocations (scripts/swift-build-static.sh) need glibc 2.36's dynamic linker.
        let libc = depends.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.hasPrefix("libc6 (>= ") }
        let libcMinimum = libc.map { String($0.dropFirst("libc6 (>= ".count).dropLast()) } ?? "0"
        #expect(try Command.run(["dpkg", "--compare-versions", libcMinimum, "ge", "2.36"]).status == 0, "\(depends)")
        // The daemon's C libraries (once it links them) and the user-creating tool.
        #expect(dependedOn.contains("libasound2"))
        #expect(dependedOn.contains("systemd"))
        // GPIO goes through libgpiod, shared in the package (docs/HARDWARE.md): its package is a
        // dependency, whichever major the build machine has (libgpiod2 on bookworm, libgpiod3 on trixie).
        let daemonLibraries = try Command.run(["objdump", "-p", tree + "/usr/bin/soundtrace"]).stdout
        #expect(
            daemonLibraries.split(separator: "\n").contains { line in
                let parts = line.split(separator: " ")
                return parts.count == 2 && parts[0] == "NEEDED" && parts[1].hasPrefix("libgpiod.so.")
            }, "\(daemonLibraries)")
        #expect(dependedOn.contains { $0.hasPrefix("libgpiod") }, "\(depends)")

        // The libraries compiled into the binary travel with their notices, and the MQTT one is
        // there without libmosquitto's OpenSSL: no TLS library is loaded at start.
        let copyright = try String(contentsOfFile: tree + "/usr/share/doc/soundtrace/copyright", encoding: .utf8)
        #expect(copyright.contains("KissFFT") && copyright.contains("Mark Borgerding"), "\(copyright)")
        #expect(copyright.contains("Eclipse Distribution License") && copyright.contains("Roger Light"), "\(copyright)")
        #expect(!daemonLibraries.contains("libmosquitto") && !daemonLibraries.contains("libssl"), "\(daemonLibraries)")
    }

    /// The Debian package that provides a shared library, looked up the way the dynamic linker finds it.
    static func package(owning soname: String) throws -> String {
        let cache = try Command.run(["/sbin/ldconfig", "-p"]).stdout
        // Lines read "\tlibc.so.6 (libc6,x86-64, OS ABI: Linux 3.2.0) => /lib/x86_64-linux-gnu/libc.so.6".
        let entry = cache.split(separator: "\n").first { $0.split(whereSeparator: \.isWhitespace).first.map(String.init) == soname }
        let path = try #require(entry?.split(separator: " ").last.map(String.init), "\(soname) is not in the linker cache")
        for candidate in [path, (path as NSString).resolvingSymlinksInPath, "/usr" + path] {
            let run = try Command.run(["dpkg", "-S", candidate])
            if run.status == 0, let owner = run.stdout.split(separator: ":").first { return String(owner) }
        }
        Issue.record("no package owns \(path)")
        return "?"
    }
}

/// A staging folder with a stand-in binary for deploy/install.sh: like the real one, it answers
/// `--version` as the daemon when started under the name `soundtraced` (unless `multiCall` is false,
/// as a CLI built before the two programs became one binary would not).
private struct Stage {
    /// Removed, with the staged installation, when the test lets go of its stage.
    private let folder: TemporaryFolder
    var directory: String { folder.path }
    var destdir: String { directory + "/root" }
    var binaries: String { directory + "/bin" }

    init(multiCall: Bool = true) throws {
        folder = try TemporaryFolder("soundtrace-deploy-stage")
        try FileManager.default.createDirectory(atPath: binaries, withIntermediateDirectories: true)
        let path = binaries + "/soundtrace"
        let script =
            multiCall
            ? "#!/bin/sh\ncase \"${0##*/}\" in soundtraced) echo 'soundtraced 0.0.0-stand-in' ;; *) echo 'soundtrace 0.0.0-stand-in' ;; esac\n"
            : "#!/bin/sh\necho 'soundtrace 0.0.0-stand-in'\n"
        // Written by a child process, not by this one: while this process holds a file open for
        // writing, any child another test forks meanwhile inherits that descriptor until it execs,
        // and running the file then fails with "text file busy" (install.sh runs it).
        try script.write(toFile: path + ".source", atomically: true, encoding: .utf8)
        let placed = try Command.run(["install", "-m", "0755", path + ".source", path])
        guard placed.status == 0 else { throw POSIXError(.EIO) }
        try FileManager.default.removeItem(atPath: path + ".source")
    }

    /// What the symbolic link at `path` (under the staging root) points to.
    func linkTarget(_ path: String) throws -> String { try Self.linkTarget(destdir + path) }

    static func linkTarget(_ path: String) throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: path)
    }

    static func temporaryDirectory(_ purpose: String) throws -> String {
        let path = NSTemporaryDirectory() + "soundtrace-deploy-\(purpose)-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func install() throws -> Command.Result {
        var environment = ProcessInfo.processInfo.environment
        environment["DESTDIR"] = destdir
        return try Command.run([DeploymentTests.root + "/deploy/install.sh", "--bin-dir", binaries], environment: environment)
    }

    func mode(_ path: String) throws -> Int {
        var info = stat()
        guard lstat(destdir + path, &info) == 0 else { throw POSIXError(.ENOENT) }
        return Int(info.st_mode) & 0o7777
    }

    /// Every path under the staging root (files and folders), relative to it.
    func all() throws -> [String] {
        guard FileManager.default.fileExists(atPath: destdir) else { return [] }
        return try FileManager.default.subpathsOfDirectory(atPath: destdir).map { "/" + $0 }.sorted()
    }

    func files() throws -> [String] {
        try all().filter { path in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: destdir + path, isDirectory: &isFolder) && !isFolder.boolValue
        }
    }

    /// Paths, modes and contents of the staged tree, to compare two installs.
    func fingerprint() throws -> [String] {
        try all().map { path in
            let data = (try? Data(contentsOf: URL(fileURLWithPath: destdir + path))) ?? Data()
            return "\(path) \(String(try mode(path), radix: 8)) \(data.base64EncodedString())"
        }
    }
}

/// One child process, run to its end, with its output collected through files (no pipe can fill up).
private enum Command {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static func run(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Result {
        let folder = try Stage.temporaryDirectory("run")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let out = folder + "/out"
        let err = folder + "/err"
        var environment = environment
        // swift-build's folder, for build-deb.sh when the tests are run without it on PATH.
        environment["PATH"] = (environment["PATH"] ?? "/usr/bin:/bin") + ":/opt/swift/usr/bin:/usr/sbin:/sbin"
        // ChildProcess (posix_spawn), not Foundation's Process: its weak references, alive at exit,
        // showed as leaks under LeakSanitizer (scripts/sanitizers.sh address), and its descriptors
        // for the output files were open in this process where other tests' children could inherit them.
        let child = try ChildProcess(
            path: "/usr/bin/env", arguments: arguments, environment: environment,
            stdout: out, stderr: err)
        return Result(
            status: child.waitForExit(),
            stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }
}
