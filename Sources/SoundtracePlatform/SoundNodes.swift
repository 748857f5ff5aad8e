import Glibc

/// Whether this process is shut out of the sound devices that exist. ALSA reports a card it cannot
/// open as absent (its card scan skips control devices it may not open), so "no such device" can
/// really mean "not allowed": no group membership, or a service sandbox without `DeviceAllow=`.
enum SoundNodes {
    /// True when `directory` holds ALSA control devices (`controlC*`) and every one of them refuses
    /// this process with EACCES or EPERM.
    static func deniedToThisProcess(directory: String = "/dev/snd") -> Bool {
        guard let names = DirectoryNames.list(directory) else { return false }
        var denied = 0
        for name in names {
            guard name.hasPrefix("controlC") else { continue }
            let fd = open(directory + "/" + name, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            if fd >= 0 {
                close(fd)
                return false
            }
            guard errno == EACCES || errno == EPERM else { return false }
            denied += 1
        }
        return denied > 0
    }
}
