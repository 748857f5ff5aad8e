// The memory floor under the daemon: a Swift program that imports Glibc only and sleeps in
// pause(). With -DWITH_C_LIBRARIES it also calls one function of SQLite and of ALSA, so that the
// same shared C libraries as soundtraced's are loaded (bench/daemon/run.sh builds both, static
// and dynamic standard library).
import Glibc

#if WITH_C_LIBRARIES
@_silgen_name("sqlite3_libversion") func sqlite3_libversion() -> UnsafePointer<CChar>
@_silgen_name("snd_asoundlib_version") func snd_asoundlib_version() -> UnsafePointer<CChar>
let versions = String(cString: sqlite3_libversion()) + " " + String(cString: snd_asoundlib_version())
#else
let versions = "-"
#endif
let text = "baseline ready \(versions)\n"
_ = text.withCString { write(2, $0, strlen($0)) }
while true { pause() }
