import SoundtraceFingerprint

/// One self-contained SVG of a verdict: the spectrogram with its peaks, the landmark hits of the
/// best candidates over offsets against the chance floor and the bar, the signature agreement over
/// time at the deciding alignment, and every check with its bar and the verdict in words.
enum ExplainSVG {
    static let width = 1000.0
    static let left = 70.0
    static let plotWidth = 900.0

    static func render(_ e: QueryExplanation, catalog: Catalog, title: String) -> String {
        var svg: [String] = []
        let checks = DecisionChecks.of(e)
        let bars = checks.map { wrapped("needs \($0.bar)", columns: barColumns) }
        let height = 820.0 + 38.0 * Double(checks.count) + 16.0 * Double(bars.joined().count - bars.count)
        svg.append(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" font-family=\"sans-serif\" font-size=\"13\">"
        )
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>")
        svg.append(text(left, 24, "soundtrace explain: \(title)", size: 16, bold: true))
        svg.append(
            text(
                left, 46, DecisionChecks.sentence(e, catalog: catalog), size: 14, bold: true,
                color: e.verdict.isMatch ? "#176b2c" : "#9b1c1c"))
        spectrogram(e, top: 70, height: 240, into: &svg)
        hits(e, top: 350, height: 190, into: &svg)
        agreement(e, top: 590, height: 150, into: &svg)
        var y = 790.0
        svg.append(text(left, y, "Checks (each must pass for a match)", size: 14, bold: true))
        for (check, bar) in zip(checks, bars) {
            y += 22
            let mark = check.passed.map { $0 ? "pass" : "FAIL" } ?? "—"
            let color = check.passed.map { $0 ? "#176b2c" : "#9b1c1c" } ?? "#555"
            svg.append(text(left, y, "\(mark)", bold: true, color: color))
            svg.append(text(left + 50, y, "\(check.name): \(check.value)"))
            for line in bar {
                y += 16
                svg.append(text(left + 50, y, line, size: 12, color: "#555"))
            }
        }
        svg.append("</svg>")
        return svg.joined(separator: "\n") + "\n"
    }

    /// Characters of 12-pixel text that fit the width right of the pass/fail column.
    static let barColumns = 125

    /// `line` broken at spaces into lines of at most `columns` characters (a longer word alone).
    static func wrapped(_ line: String, columns: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in line.split(separator: " ", omittingEmptySubsequences: false) {
            if !current.isEmpty && current.count + 1 + word.count > columns {
                lines.append(current)
                current = String(word)
            } else {
                current = current.isEmpty ? String(word) : current + " " + word
            }
        }
        return lines + [current]
    }

    private static func spectrogram(_ e: QueryExplanation, top: Double, height: Double, into svg: inout [String]) {
        let frames = e.spectrogram.count
        svg.append(
            text(
                left, top - 6,
                "What was heard: spectrogram (\(DecisionChecks.fmt(Double(frames) / e.framesPerSecond)) s, 0–\(Int(Double(e.topBin) * e.hertzPerBin)) Hz) and its peaks",
                bold: true))
        guard frames > 0 else { return }
        let bins = e.topBin + 1
        // Brighter is louder: each frame's bytes stretched over the loudest 60 dB of the query.
        let loudest = e.spectrogram.joined().max().map(Int.init) ?? 0
        let floor = loudest - 80  // 0.75 dB a step
        var pixels = [UInt8](repeating: 0, count: frames * bins)
        for (f, row) in e.spectrogram.enumerated() {
            for b in 0..<bins {
                let level = max(0, Int(row[b]) - floor) * 255 / max(1, loudest - floor)
                pixels[(bins - 1 - b) * frames + f] = UInt8(min(255, level))
            }
        }
        let png = PNGEncoder.grayscale(width: frames, height: bins, pixels: pixels)
        svg.append(
            "<image x=\"\(left)\" y=\"\(top)\" width=\"\(plotWidth)\" height=\"\(height)\" preserveAspectRatio=\"none\" href=\"data:image/png;base64,\(PNGEncoder.base64(png))\"/>"
        )
        let sx = plotWidth / Double(frames)
        let sy = height / Double(bins)
        for peak in e.peaks where peak.frame < frames {
            svg.append(
                "<circle cx=\(q(left + (Double(peak.frame) + 0.5) * sx)) cy=\(q(top + height - (Double(peak.bin) + 0.5) * sy)) r=\"2.2\" fill=\"none\" stroke=\"#ff7a00\" stroke-width=\"1\"/>"
            )
        }
        svg.append(axisLabel(left, top + height + 14, "0 s"))
        svg.append(axisLabel(left + plotWidth - 30, top + height + 14, "\(DecisionChecks.fmt(Double(frames) / e.framesPerSecond)) s"))
    }

    private static func hits(_ e: QueryExplanation, top: Double, height: Double, into svg: inout [String]) {
        svg.append(
            text(
                left, top - 6,
                "Landmark hits over offsets of the best candidates: a true alignment is one spike far above the chance floor", bold: true))
        guard let best = e.candidates.first else {
            svg.append(text(left, top + 20, "no landmark hit any catalog recording"))
            return
        }
        let bar = Double(e.parameters.minAlignedHits)
        // The best candidate's hits over its offsets; the others only by name (their offsets are
        // another recording's time line).
        let maxHits = max(bar * 1.3, Double(best.hits.max() ?? 1))
        func y(_ v: Double) -> Double { top + height - v / maxHits * height }
        svg.append("<rect x=\(q(left)) y=\(q(top)) width=\(q(plotWidth)) height=\(q(height)) fill=\"none\" stroke=\"#ccc\"/>")
        let n = max(1, best.hits.count)
        var points: [String] = []
        for (k, h) in best.hits.enumerated() {
            points.append("\(q(left + Double(k) / Double(n) * plotWidth, bare: true)),\(q(y(Double(h)), bare: true))")
        }
        svg.append("<polyline fill=\"none\" stroke=\"#1f4e9c\" stroke-width=\"1.2\" points=\"\(points.joined(separator: " "))\"/>")
        for (i, c) in e.candidates.prefix(3).enumerated() {
            let what =
                "\(c.referenceId): best \(c.score) hits at \(Text.seconds(e.parameters.seconds(forFrames: c.offsetFrames))) s\(i == 0 ? " (drawn)" : "")"
            svg.append(text(left + plotWidth - 360, top + 16 + 16 * Double(i), what, color: i == 0 ? "#1f4e9c" : "#555"))
        }
        svg.append(line(left, y(bar), left + plotWidth, y(bar), color: "#9b1c1c", dash: true))
        svg.append(text(left + 4, y(bar) - 4, "bar: \(e.parameters.minAlignedHits) hits", color: "#9b1c1c"))
        let chance = max(e.chanceLevel, 0)
        svg.append(line(left, y(chance), left + plotWidth, y(chance), color: "#555", dash: true))
        svg.append(text(left + 160, min(top + height - 4, y(chance) - 4), "chance: \(DecisionChecks.fmt(chance)) hits", color: "#555"))
        let first = e.parameters.seconds(forFrames: best.firstOffset)
        let last = e.parameters.seconds(forFrames: best.firstOffset + best.hits.count * best.offsetsPerBar)
        svg.append(axisLabel(left, top + height + 14, "offset \(Text.seconds(first)) s"))
        svg.append(axisLabel(left + plotWidth - 70, top + height + 14, "\(Text.seconds(last)) s"))
    }

    private static func agreement(_ e: QueryExplanation, top: Double, height: Double, into svg: inout [String]) {
        svg.append(
            text(
                left, top - 6,
                "Frame signatures at the deciding alignment: share of weighted bits that disagree (0: the same mix; 0.5: unrelated)",
                bold: true))
        guard let a = e.agreement, !a.errors.isEmpty else {
            svg.append(text(left, top + 20, "not measured: too little audio, or no candidate"))
            return
        }
        func y(_ rate: Double) -> Double { top + height - min(1, rate / 0.6) * height }
        svg.append("<rect x=\(q(left)) y=\(q(top)) width=\(q(plotWidth)) height=\(q(height)) fill=\"none\" stroke=\"#ccc\"/>")
        // Smoothed over a quarter second so the line shows the trend, not each frame's luck.
        let window = 16
        let n = a.errors.count
        var points: [String] = []
        for f in 0..<n {
            let lo = max(0, f - window / 2)
            let hi = min(n, f + window / 2)
            let weight = a.weights[lo..<hi].reduce(0, +)
            guard weight > 0 else { continue }
            let rate = Double(a.errors[lo..<hi].reduce(0, +)) / Double(weight)
            points.append("\(q(left + Double(f) / Double(n) * plotWidth, bare: true)),\(q(y(rate), bare: true))")
        }
        svg.append("<polyline fill=\"none\" stroke=\"#1f4e9c\" stroke-width=\"1.4\" points=\"\(points.joined(separator: " "))\"/>")
        let maxRate = Double(e.parameters.wholeMixMaxErrorRateQ12) / 4096
        svg.append(line(left, y(0.5), left + plotWidth, y(0.5), color: "#555", dash: true))
        svg.append(text(left + plotWidth - 160, y(0.5) - 4, "unrelated music: 0.5", color: "#555"))
        svg.append(line(left, y(maxRate), left + plotWidth, y(maxRate), color: "#9b1c1c", dash: true))
        svg.append(text(left + 4, y(maxRate) + 14, "bar: at most \(DecisionChecks.fmt(maxRate)) over the whole query", color: "#9b1c1c"))
        svg.append(
            axisLabel(
                left, top + height + 14, "against \(a.referenceId) from \(Text.seconds(e.parameters.seconds(forFrames: a.offsetFrames))) s")
        )
    }

    private static func q(_ v: Double, bare: Bool = false) -> String {
        let s = String((v * 10).rounded() / 10)
        return bare ? s : "\"\(s)\""
    }

    private static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, color: String, dash: Bool) -> String {
        "<line x1=\(q(x1)) y1=\(q(y1)) x2=\(q(x2)) y2=\(q(y2)) stroke=\"\(color)\" stroke-width=\"1\"\(dash ? " stroke-dasharray=\"5,4\"" : "")/>"
    }

    private static func axisLabel(_ x: Double, _ y: Double, _ s: String) -> String { text(x, y, s, size: 11, color: "#555") }

    private static func text(_ x: Double, _ y: Double, _ s: String, size: Int = 13, bold: Bool = false, color: String = "#111") -> String {
        "<text x=\(q(x)) y=\(q(y)) font-size=\"\(size)\" fill=\"\(color)\"\(bold ? " font-weight=\"bold\"" : "")>\(escape(s))</text>"
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
