# Sourced by the fetch-*.sh scripts: `debian_source PACKAGE DIR` downloads Debian's source package
# PACKAGE (its .dsc, original tarball and Debian changes) into DIR through a private apt
# configuration that adds deb-src for this call only; the system's apt sources are not touched.
# The stable suite and its -updates are searched, so that point releases' fixes are found.

debian_source() {
  local package=$1 dir=$2 uri suite
  mkdir -p "$dir/apt/sources" "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial"
  # Reuse the mirror the system already trusts, so this works wherever apt works.
  uri=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n 1 || true)
  if [ -z "$uri" ]; then
    uri=$(awk '$1 == "deb" && $0 !~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  fi
  uri=${uri:-http://deb.debian.org/debian}
  suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
  cat >"$dir/apt/sources/$package-src.sources" <<SRC
Types: deb-src
URIs: $uri
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  local apt_private=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$dir/apt/sources"
                     -o "Dir::State::Lists=$dir/apt/lists" -o "Dir::Cache=$dir/apt/cache"
                     -o APT::Sandbox::User=root -q)
  echo "fetching the $package sources from Debian ($uri $suite)…" >&2
  apt-get "${apt_private[@]}" update >/dev/null
  (cd "$dir" && apt-get "${apt_private[@]}" source --download-only "$package" >/dev/null)
}
