"""Debian's ALSA configuration as the appliance has it: /usr/share/alsa/alsa.conf without its first
hook. That hook loads /etc/alsa/conf.d, where pulseaudio and libasound2-plugins (installed on the
measuring machine for the simulated microphone, never on the appliance) make every capture open
load libpulse and about 20 libraries, which stay mapped after the session: +3 to +4 MiB of RSS
that a board without them never has. Shared by daemon.py and catalog-start.py."""


def appliance_alsa_conf(debian_conf="/usr/share/alsa/alsa.conf"):
    text = open(debian_conf).read()
    hook_start = text.index("@hooks [")
    hook_end = text.index("\n]\n", hook_start) + 3
    return text[:hook_start] + text[hook_end:]
