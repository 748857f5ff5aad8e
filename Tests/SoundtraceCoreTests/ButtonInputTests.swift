import Testing

@testable import SoundtraceCore

/// Raw edges through `ButtonInput` (debouncer + gestures) with a manual clock: the owner reads
/// edges as they come and settles at every deadline, as the daemon's loop does.
@Suite struct ButtonInputTests {
    struct Table: Sendable, CustomTestStringConvertible {
        let name: String
        let edges: [(Int64, Bool)]
        let expected: [(ButtonGestures.Gesture, Int64)]
        var testDescription: String { name }
    }

    static let tables: [Table] = [
        Table(
            name: "bouncing press and release",
            edges: [
                (100, true), (102, false), (104, true), (107, false), (109, true),
                (400, false), (401, true), (403, false)
            ],
            expected: [(.shortPress, 433)]),
        Table(name: "a glitch shorter than 30 ms", edges: [(100, true), (110, false)], expected: []),
        Table(
            name: "release bounce right after a short press", edges: [(100, true), (160, false), (161, true), (163, false)],
            expected: [(.shortPress, 193)]),
        Table(
            name: "hold with bounces on both ends",
            edges: [(100, true), (103, false), (105, true), (2000, false), (2004, true), (2006, false)],
            expected: [(.hold, 1605)]),
        Table(
            name: "two quick presses", edges: [(100, true), (180, false), (260, true), (340, false)],
            expected: [(.shortPress, 210), (.shortPress, 370)]),
        Table(name: "press just under the hold", edges: [(100, true), (1590, false)], expected: [(.shortPress, 1620)])
    ]

    /// Runs `edges` (ms, pressed) with deadlines honoured, the owner waking exactly at each.
    func run(_ edges: [(Int64, Bool)], debounced: Bool = false, readyAt: Int64 = 0, until end: Int64 = 10_000) -> [(
        ButtonGestures.Gesture, Int64
    )] {
        var input = ButtonInput(debouncedEdges: debounced)
        input.becomeReady(at: readyAt)
        var out: [(ButtonGestures.Gesture, Int64)] = []
        func settle(to time: Int64) {
            while let due = input.deadline, due <= time { out += input.settle(now: due).map { ($0, due) } }
        }
        for (time, pressed) in edges {
            settle(to: time)
            out += input.edge(ButtonEdge(pressed: pressed, at: time)).map { ($0, time) }
        }
        settle(to: end)
        #expect(input.deadline == nil, "nothing pending once the button is at rest")
        return out
    }

    @Test(arguments: tables)
    func bounceTables(_ table: Table) {
        let result = run(table.edges)
        #expect(result.map(\.0) == table.expected.map(\.0))
        #expect(result.map(\.1) == table.expected.map(\.1))
    }

    @Test func edgesReadLateStillCountFromTheirTimestamps() {
        // The loop was busy: all edges of a bouncing press arrive at once, 500 ms later.
        var input = ButtonInput(debouncedEdges: false)
        input.becomeReady(at: 0)
        var gestures: [ButtonGestures.Gesture] = []
        for (time, pressed) in [(100, true), (102, false), (104, true), (300, false)] as [(Int64, Bool)] {
            gestures += input.edge(ButtonEdge(pressed: pressed, at: time))
        }
        gestures += input.settle(now: 800)
        #expect(gestures == [.shortPress])
    }

    @Test func kernelDebouncedEdgesAreTakenAsTheyCome() {
        #expect(run([(100, true), (300, false)], debounced: true).map(\.0) == [.shortPress])
        #expect(run([(100, true), (300, false)], debounced: true).map(\.1) == [300])
        // A repeated level (an event lost in between) changes nothing.
        #expect(run([(100, true), (150, true), (300, false), (310, false)], debounced: true).map(\.0) == [.shortPress])
        // The kernel reports edges after its debounce period: a hold waits that long for a
        // release stamped before the hold time, so 1.49 s stays a short press.
        #expect(run([(100, true), (2000, false)], debounced: true).map(\.1) == [1630])
        #expect(run([(100, true), (1590, false)], debounced: true).map(\.0) == [.shortPress])
    }

    @Test func pressesBeforeReadyAreIgnoredEvenWhenReadAfterwards() {
        // Pressed at 400 while starting, ready at 1000, all edges read at once later.
        #expect(run([(400, true), (1200, false)], readyAt: 1000).isEmpty)
        #expect(run([(400, true), (1200, false), (1500, true), (1600, false)], readyAt: 1000).map(\.0) == [.shortPress])
        // A hold that began before ready does not toggle calm mode either.
        #expect(run([(900, true), (4000, false)], readyAt: 1000).isEmpty)
    }
}
