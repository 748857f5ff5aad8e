import Glibc
import SoundtraceCore

/// The panel on real lines (GPIO on a kiosk, a fake in tests): button edges through `ButtonInput`
/// into gestures, and the appliance's states played on the LEDs and the buzzer by an
/// `IndicatorPlayer`. Only the main loop touches the lines; the appliance's state changes, which
/// come from any thread, wait in a mailbox and wake the loop.
final class LinesPanel: Panel {
    let lines: PanelLines
    private let mailbox: Mailbox
    private var button: ButtonInput
    private var player: IndicatorPlayer
    private var shown: PanelLevels?
    private var buttonFailed = false
    /// Wake-ups in a row that found the button readable but no edge: a line in an error state
    /// (e.g. its chip went away) would otherwise wake the loop forever.
    private var emptyReads = 0
    static let maxEmptyReads = 100
    private var outputFailed = false

    /// `wake` makes the main loop's poll return (a state change came from another thread).
    init(lines: PanelLines, muted: Bool, wake: @escaping @Sendable () -> Void) {
        self.lines = lines
        mailbox = Mailbox(wake: wake)
        button = ButtonInput(debouncedEdges: lines.debouncedEdges)
        player = IndicatorPlayer(muted: muted)
        apply(player.levels)
    }

    var indicator: StateIndicator { mailbox }
    var pollDescriptor: Int32 { buttonFailed ? -1 : lines.buttonDescriptor }

    var deadline: Int64? {
        [button.deadline, player.deadline].compactMap { $0 }.min()
    }

    func becomeReady(at time: Int64) {
        button.becomeReady(at: time)
    }

    func service(now: Int64, readable: Bool) -> [ButtonGestures.Gesture] {
        for change in mailbox.take() {
            switch change {
            case let .state(state, calm): player.show(state, calm: calm, at: now)
            case let .calm(calm): player.calmChanged(calm, at: now)
            }
        }
        var gestures: [ButtonGestures.Gesture] = []
        if readable, !buttonFailed {
            do {
                let edges = try lines.readButtonEdges()
                for edge in edges { gestures += button.edge(edge) }
                emptyReads = edges.isEmpty ? emptyReads + 1 : 0
                if emptyReads >= Self.maxEmptyReads {
                    throw PanelLinesFault("the line keeps signalling without delivering edges (\(emptyReads) times in a row)")
                }
            } catch {
                buttonFailed = true
                DaemonLog.error("the button stopped working, it is no longer watched (the protocol still works): \(error)")
            }
        }
        gestures += button.settle(now: now)
        apply(player.advance(to: now))
        return gestures
    }

    func close() {
        apply(.dark)
    }

    private func apply(_ levels: PanelLevels) {
        guard levels != shown else { return }
        do {
            try lines.set(levels)
            shown = levels
            outputFailed = false
        } catch {
            // Logged once per run of failures; the next change tries again.
            if !outputFailed { DaemonLog.error("cannot show \(levels) on the LEDs and buzzer: \(error)") }
            outputFailed = true
        }
    }

    /// State changes waiting for the main loop; the appliance's indicator.
    final class Mailbox: StateIndicator, @unchecked Sendable {
        // @unchecked: `pending` is touched only while `lock` is held.
        enum Change: Equatable {
            case state(IndicatorState, calm: Bool)
            case calm(Bool)
        }

        private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        private var pending: [Change] = []
        private let wake: @Sendable () -> Void

        init(wake: @escaping @Sendable () -> Void) {
            self.wake = wake
            pthread_mutex_init(lock, nil)
        }

        deinit {
            pthread_mutex_destroy(lock)
            lock.deallocate()
        }

        func show(_ state: IndicatorState, calm: Bool, detail: String) { post(.state(state, calm: calm)) }
        func calmModeChanged(_ calm: Bool) { post(.calm(calm)) }

        func take() -> [Change] {
            pthread_mutex_lock(lock)
            defer { pthread_mutex_unlock(lock) }
            let taken = pending
            pending = []
            return taken
        }

        private func post(_ change: Change) {
            pthread_mutex_lock(lock)
            // Only the newest state matters if the loop fell behind; calm toggles are all kept.
            if case .state = change, case .state? = pending.last { pending.removeLast() }
            pending.append(change)
            pthread_mutex_unlock(lock)
            wake()
        }
    }
}
