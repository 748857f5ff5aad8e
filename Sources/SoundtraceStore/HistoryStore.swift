import Glibc
import SoundtraceClock

/// The appliance's memory: the one entry point to the SQLite history of successful recognitions,
/// favorites and app settings. Open it with `HistoryStore.open(path:clock:)`.
///
/// Every write is one durable transaction (WAL, `synchronous=FULL`): when a write method returns,
/// the change survives a crash or power loss. Operations on one store are serialized by its own
/// lock, so the daemon can record a match from a capture thread (the write waits for the disk: tens
/// of milliseconds on an SD card) without holding the lock every protocol command takes; other
/// processes need their own store, and the schema keeps them consistent.
public final class HistoryStore: @unchecked Sendable {
    // @unchecked: `connection` is read and replaced only under `lock`.
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// The database file's path.
    public let path: String
    private var connection: SQLiteConnection?
    /// Unix milliseconds, injected so that tests control the times stored and the moved-aside names.
    let clock: any TimeSource

    init(path: String, connection: SQLiteConnection, clock: any TimeSource) {
        self.path = path
        self.connection = connection
        self.clock = clock
        // Recursive: a store method may run another one (a migration step reading a setting).
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(lock, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        connection?.close()
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    private func locked<T>(_ body: () throws(HistoryError) -> T) throws(HistoryError) -> T {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body()
    }

    /// Closes the database; later calls fail with `.closed`. Closing checkpoints and removes the WAL.
    /// Waits for an operation in progress on another thread.
    public func close() {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        connection?.close()
        connection = nil
    }

    /// Runs an intent-named write as one immediate transaction, then checkpoints so the WAL stays small.
    func write<T>(_ operation: String, _ body: (SQLiteConnection) throws(SQLiteCause) -> T) throws(HistoryError) -> T {
        try locked { () throws(HistoryError) -> T in
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
    }

    /// Runs a read in one transaction, so that rows read by several statements come from one snapshot.
    func read<T>(_ operation: String, _ body: (SQLiteConnection) throws(SQLiteCause) -> T) throws(HistoryError) -> T {
        try locked { () throws(HistoryError) -> T in
            let open = try liveConnection()
            do throws(SQLiteCause) {
                return try open.transaction(immediate: false) { () throws(SQLiteCause) -> T in try body(open) }
            } catch {
                throw HistoryError.from(error, path: path, operation: operation)
            }
        }
    }

    private func liveConnection() throws(HistoryError) -> SQLiteConnection {
        guard let open = connection else { throw .closed(path: path) }
        return open
    }
}
