/// Replies as docs/PROTOCOL.md specifies them, for the fake daemon.
enum Canned {
    static let status = """
        state: idle
        session: s-3
        session_state: noMatch
        last_session: s-3
        last_outcome: noMatch
        last_message: heard audio that is not in the catalog
        calm: no
        catalog: ok
        catalog_version: 1
        catalog_hash: 075693fc
        catalog_references: 7
        device: default
        device_health: ok
        window: 10
        OK

        """

    /// A daemon that kept an older catalog after a failed reload, cannot record its history and
    /// shows its state on the console because GPIO could not be opened.
    static let statusWithProblems = """
        state: idle
        calm: no
        catalog: ok
        catalog_version: 2
        catalog_hash: 075693fc
        catalog_references: 7
        catalog_warning: reloading /var/lib/soundtrace/soundtrace.catalog failed, still serving the previous catalog: not a catalog
        history_error: cannot open the history database: disk I/O error
        device: default
        device_health: unknown
        window: 10
        panel: console
        panel_error: no GPIO chip has the configured lines
        OK

        """

    static let statusListening = """
        state: listening
        session: s-4
        session_state: listening
        last_session: s-3
        last_outcome: noMatch
        last_message: heard audio that is not in the catalog
        calm: no
        catalog: ok
        OK

        """

    static let statusMatched = """
        state: idle
        session: s-4
        session_state: matched
        last_session: s-4
        last_outcome: matched
        last_reference: harbor-lights
        last_title: Harbor Lights
        calm: no
        catalog: ok
        OK

        """

    static let listening = """
        session: s-4
        state: listening
        started_at: 2026-11-29T15:40:00.500Z
        OK

        """

    /// What every answer about matched session s-4 says before whether its match was saved.
    static let matchedHead = """
        session: s-4
        state: matched
        started_at: 2026-11-29T15:40:00.500Z
        reference: harbor-lights
        title: Harbor Lights
        creator: Soundtrace Project
        license: CC0-1.0
        offset: 12.345
        score: 57
        heard: 1.875

        """

    static let matched =
        matchedHead + """
            event: 12
            saved: yes
            OK

            """

    /// A match the daemon could not record (its card is full).
    static let matchedNotSaved =
        matchedHead + """
            saved: no
            save_error: cannot record the match: the disk is full; free space
            OK

            """

    /// A match whose recognition was deleted from the history since.
    static let matchedDeleted =
        matchedHead + """
            saved: deleted
            OK

            """

    static let noMatch = """
        session: s-4
        state: noMatch
        started_at: 2026-11-29T15:40:00.500Z
        heard: 10.000
        reason: notInCatalog
        message: heard audio that is not in the catalog
        OK

        """

    static let failed = """
        session: s-4
        state: failed
        started_at: 2026-11-29T15:40:00.500Z
        reason: deviceDisconnected
        message: the microphone was unplugged while listening; plug it back in and listen again
        OK

        """

    static let canceled = """
        session: s-4
        state: canceled
        started_at: 2026-11-29T15:40:00.500Z
        message: canceled
        OK

        """

    static let canceledByShutdown = """
        session: s-4
        state: canceled
        started_at: 2026-11-29T15:40:00.500Z
        reason: shutdown
        message: canceled: soundtraced is stopping
        OK

        """

    static let changedState = "changed: state\nOK\n"

    static let history = """
        id: 12
        session: s-4
        reference: harbor-lights
        title: Harbor Lights
        creator: Soundtrace Project
        matched_at: 2026-11-29T15:40:02.375Z
        offset: 12.345
        score: 57
        favorite: yes
        id: 11
        session: s-2
        reference: morning-bell
        title: Morning Bell
        creator: Soundtrace Project
        matched_at: 2026-11-29T15:30:00.000Z
        offset: -0.250
        score: 31
        favorite: no
        OK

        """

    static let show = """
        id: 12
        session: s-4
        reference: harbor-lights
        title: Harbor Lights
        creator: Soundtrace Project
        matched_at: 2026-11-29T15:40:02.375Z
        offset: 12.345
        score: 57
        favorite: yes
        license: CC0-1.0
        source_file: audio/harbor-lights.flac
        catalog_hash: 075693fc
        meta: tempo=96
        meta: key=D minor
        OK

        """

    static let share = """
        text: Heard "Harbor Lights" by Soundtrace Project (CC0-1.0), 12.3 s in, on 2026-11-29 at 15:40 UTC - recognized offline by Soundtrace.
        OK

        """

    static let catalog = """
        reference: harbor-lights
        title: Harbor Lights
        creator: Soundtrace Project
        license: CC0-1.0
        duration: 205.250
        reference: morning-bell
        title: Morning Bell
        creator: Soundtrace Project
        license: CC-BY-4.0
        duration: 61.000
        OK

        """

    static let favorites = """
        reference: harbor-lights
        title: Harbor Lights
        favorited_at: 2026-11-29T15:41:00.000Z
        OK

        """
}
