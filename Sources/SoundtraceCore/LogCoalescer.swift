/// Keeps a log readable and bounded when lines come fast. A client churning `listen`/`cancel` once
/// made the daemon write hundreds of lines a second, and journald's rate limit, the only brake
/// then, drops lines blindly. Lines are grouped by kind: the text with every run of digits read as
/// one placeholder, so "session s-7 canceled" and "session s-8 canceled" are one kind. In each
/// window a kind is written `linesPerKind` times and then only counted, and at most
/// `linesPerWindow` lines are written in all; once the window is over, what was left out comes out
/// as a few summary lines. No I/O and no clock: the caller passes the time and asks for the summary
/// at `deadline`, which is set only while one is pending, so a quiet log never wakes anyone.
public struct LogCoalescer: Sendable {
    public struct Limits: Sendable, Equatable {
        public var windowMilliseconds: Int64 = 10_000
        /// Lines of one kind written per window; more are counted.
        public var linesPerKind = 5
        /// Lines written per window in all (summaries aside); more are counted.
        public var linesPerWindow = 30
        /// Kinds counted one by one per window, so memory stays bounded whatever is logged.
        public var kindsTracked = 64
        /// Kinds summarized with a line each; the rest share one line.
        public var summaryKinds = 5
        public init() {}

        /// The most lines one window can produce: its own lines and its summary.
        public var maxLinesPerWindow: Int { linesPerWindow + summaryKinds + 1 }
    }

    private struct Tally: Sendable {
        var written = 0
        var leftOut = 0
        var lastLeftOut = ""
    }

    public let limits: Limits
    /// When the current window ends; nil before its first line.
    private var windowEnd: Int64?
    private var tallies: [String: Tally] = [:]
    /// Kinds with lines left out, in the order that first happened (the summary's order).
    private var leftOutKinds: [String] = []
    /// Lines left out whose kind was not tracked (more kinds than `kindsTracked` in one window).
    private var untrackedLeftOut = 0
    private var written = 0

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// When the pending summary is due; nil when nothing was left out (nothing to wait for).
    public var deadline: Int64? { leftOutKinds.isEmpty && untrackedLeftOut == 0 ? nil : windowEnd }

    /// What to write for `line` arriving at `now`: the summary of a window that is over, then the
    /// line itself unless it is left out.
    public mutating func admit(_ line: String, now: Int64) -> [String] {
        var out = flush(now: now)
        if windowEnd == nil { windowEnd = now + limits.windowMilliseconds }
        let kind = Self.kind(of: line)
        guard var tally = tallies[kind] ?? (tallies.count < limits.kindsTracked ? Tally() : nil) else {
            // Only reached once `kindsTracked` kinds have used up `linesPerWindow`: left out anyway.
            untrackedLeftOut += 1
            return out
        }
        if tally.written < limits.linesPerKind && written < limits.linesPerWindow {
            tally.written += 1
            written += 1
            out.append(line)
        } else {
            if tally.leftOut == 0 { leftOutKinds.append(kind) }
            tally.leftOut += 1
            tally.lastLeftOut = line
        }
        tallies[kind] = tally
        return out
    }

    /// The summary if the window is over by `now` (which closes it); nothing otherwise.
    public mutating func flush(now: Int64) -> [String] {
        guard let end = windowEnd, now >= end else { return [] }
        return finish()
    }

    /// The summary now, whether the window is over or not (before the process exits), and a fresh
    /// window for what follows.
    public mutating func finish() -> [String] {
        let within = "within \(Self.duration(limits.windowMilliseconds))"
        var out: [String] = []
        for kind in leftOutKinds.prefix(limits.summaryKinds) {
            guard let tally = tallies[kind] else { continue }
            out.append("left out \(tally.leftOut) more \(tally.leftOut == 1 ? "line" : "lines") like \"\(tally.lastLeftOut)\" \(within)")
        }
        let rest = leftOutKinds.dropFirst(limits.summaryKinds).reduce(untrackedLeftOut) { $0 + (tallies[$1]?.leftOut ?? 0) }
        if rest > 0 { out.append("left out \(rest) more \(rest == 1 ? "line" : "lines") of other kinds \(within)") }
        windowEnd = nil
        tallies = [:]
        leftOutKinds = []
        untrackedLeftOut = 0
        written = 0
        return out
    }

    /// A line's kind: its text with each run of ASCII digits replaced by `#`.
    static func kind(of line: String) -> String {
        var kind = String.UnicodeScalarView()
        var inDigits = false
        for scalar in line.unicodeScalars {
            let digit = ("0"..."9").contains(scalar)
            if !digit { kind.append(scalar) } else if !inDigits { kind.append("#") }
            inDigits = digit
        }
        return String(kind)
    }

    private static func duration(_ milliseconds: Int64) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}
