#!/usr/bin/env bash
# System tools some tests drive: headless Chromium (the HTML report renders with every
# figure) and tshark (pcap traces decode as real TCP). Installed from Debian's packages
# when missing and when we may (root with apt-get); otherwise those tests say what is
# missing. Never fails the test command by itself.
set -u
need=()
command -v chromium >/dev/null || need+=(chromium)
command -v tshark >/dev/null || need+=(tshark)
if [ ${#need[@]} -gt 0 ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null) \
        || echo "install-test-tools: could not install ${need[*]}" >&2
fi
exit 0
