import Glibc

/// The appliance's memory: the one entry point to the SQLite history of successful recognitions,
/// favorites and app settings. Open it with `HistoryStore.open(path:clock:)`.
///
/// Every write is one durable transaction (WAL, `synchronous=FULL`): when a write method returns,
/// the change survives a crash or power loss. Use one store from one owner at a time (the daemon's
/// state actor); concurrent writers elsewhere need their own store, and the schema keeps them consistent.
public final class HistoryStore {
    /// The database file's path.
    public let path: String
    private var connection: SQLiteConnection?
    /// Unix milliseconds, injected so that tests control the times stored and the moved-aside names.
    let clock: () -> Int64

    init(path: String, connection: SQLiteConnection, clock: @escaping () -> Int64) {
        self.path = path
        self.connection = connection
        self.clock = clock
    }

    deinit { connection?.close() }

    /// Closes the database; later calls fail with `.closed`. Closing checkpoints and removes the WAL.
    public func close() {
        connection?.close()
        connection = nil
    }

    /// The wall clock in unix milliseconds: the default `clock` for `open`.
    public static func systemClock() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// Runs an intent-named write as one immediate transaction, then checkpoints so the WAL stays small.
    func write<T>(_ operation: String, _ body: (SQLiteConnection) throws(SQLiteCause) -> T) throws(HistoryError) -> T {
        let open = try liveConnection()
        let result: T
        do throws(SQLiteCause) {
            result = try open.transaction(immediate: true) { () throws(SQLiteCause) -> T in try body(open) }
        } catch {
            throw HistoryError.from(error, path: path, operation: operation)
        }
        open.checkpointPassively()
        return result
    }

    /// Runs a read in one transaction, so that rows read by several statements come from one snapshot.
    func read<T>(_ operation: String, _ body: (SQLiteConnection) throws(SQLiteCause) -> T) throws(HistoryError) -> T {
        let open = try liveConnection()
        do throws(SQLiteCause) {
            return try open.transaction(immediate: false) { () throws(SQLiteCause) -> T in try body(open) }
        } catch {
            throw HistoryError.from(error, path: path, operation: operation)
        }
    }

    private func liveConnection() throws(HistoryError) -> SQLiteConnection {
        guard let open = connection else { throw .closed(path: path) }
        return open
    }
}
