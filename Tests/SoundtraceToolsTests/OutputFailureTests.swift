import Foundation
import Glibc
import SoundtraceProtocol
import SoundtraceTestSupport
import Testing

@testable import SoundtraceTools

/// Results that cannot be written (a full disk under `soundtrace match *.wav > results`) are a
/// failure that says so; a reader that went away (`| head -1`) is none.
@Suite struct OutputFailureTests {
    /// A console whose standard output is `/dev/full` (every write: ENOSPC) or the given
    /// descriptor, and whose standard error is a file read back afterwards.
    final class FullDiskConsole {
        let console: Console
        private let output: Int32
        private let errorPath = NSTemporaryDirectory() + "output-failure-\(UUID().uuidString).err"
        private let errorFile: Int32

        init(output given: Int32? = nil) throws {
            output = given ?? open("/dev/full", O_WRONLY | O_CLOEXEC)
            errorFile = open(errorPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            try #require(output >= 0 && errorFile >= 0)
            console = Console.writing(out: output, err: errorFile)
        }

        var err: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

        deinit {
            close(output)
            close(errorFile)
            unlink(errorPath)
        }
    }

    static let sample = SampleCatalogTests.root + "/catalog/audio/harbor-lights-piano.wav"

    @Test func resultsThatCannotBeWrittenEndInStatusSevenWithTheReason() throws {
        let full = try FullDiskConsole()
        let status = SoundtraceCLI.run(["catalog", "list", "--catalog", SampleCatalogTests.catalogPath], console: full.console)
        #expect(status == .outputFailed)
        #expect(full.console.outputEnded == .failed(ENOSPC))
        #expect(
            full.err
                == "soundtrace: could not write standard output (No space left on device): what it printed is incomplete, while what the command did stands; free space, or send the output elsewhere\n"
        )
    }

    @Test func aBatchStopsAtItsFirstResultThatCannotBeWritten() throws {
        let full = try FullDiskConsole()
        // The second file does not exist: a batch that went on would say so on standard error.
        let status = SoundtraceCLI.run(
            ["match", "--catalog", SampleCatalogTests.catalogPath, Self.sample, "/nonexistent/second.wav"], console: full.console)
        #expect(status == .outputFailed)
        #expect(!full.err.contains("second.wav"), "\(full.err)")
        #expect(full.err.contains("could not write standard output"))
    }

    @Test func aCommandThatFailedKeepsItsOwnStatusAndStillSaysTheOutputIsIncomplete() throws {
        let full = try FullDiskConsole()
        // `--json` prints the missing file's failure as a result, then exits 3 for it.
        let status = SoundtraceCLI.run(
            ["match", "--json", "--catalog", SampleCatalogTests.catalogPath, "/nonexistent/only.wav"], console: full.console)
        #expect(status == .inputError)
        #expect(full.err.contains("could not write standard output (No space left on device)"))
    }

    @Test func whatACommandDidStandsWhenItsReportCannotBeWritten() throws {
        let s = try CatalogEditTests.Scratch()
        defer { try? FileManager.default.removeItem(atPath: s.dir) }
        let full = try FullDiskConsole()
        let status = SoundtraceCLI.run(
            [
                "catalog", "add", s.audio("summit-banners-brass"), "--id", "summit-brass", "--title", "Summit Banners",
                "--creator", "C", "--license", "CC0-1.0", "--manifest", s.manifest, "--catalog", s.catalog
            ], console: full.console)
        #expect(status == .outputFailed)
        #expect(try Manifest.load(path: s.manifest).references.map(\.id) == ["harbor-lights-piano", "summit-brass"])
        #expect(full.err.contains("what the command did stands"))
    }

    @Test func aReaderThatWentAwayIsNoFailureAndNothingIsSaid() throws {
        // As under a parent that ignores SIGPIPE and passes that on, the write fails with EPIPE.
        // Blocked in this thread only (the command runs on it), and the pending signal taken
        // after, so that neither this process nor what other tests start ignores it.
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var before = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &before)
        defer {
            var none = timespec()
            while sigtimedwait(&pipeSignal, nil, &none) == SIGPIPE {}
            pthread_sigmask(SIG_SETMASK, &before, nil)
        }
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        close(ends[0])
        let gone = try FullDiskConsole(output: ends[1])
        let status = SoundtraceCLI.run(["catalog", "list", "--catalog", SampleCatalogTests.catalogPath], console: gone.console)
        #expect(status == .success)
        #expect(gone.console.outputEnded == .readerGone)
        #expect(gone.err.isEmpty)
    }

    @Test func watchEndsWhenItsLinesCannotBeWritten() throws {
        let full = try FullDiskConsole()
        // Only the first `status`: watch neither waits for a change nor asks again.
        let (run, received) = try converse(
            [FakeDaemon.Step(expect: "status", reply: .text(Canned.status))], ["watch"], console: full.console)
        #expect(run.status == .outputFailed)
        #expect(received == ["status"])
        #expect(full.err.contains("could not write standard output"))
    }
}
