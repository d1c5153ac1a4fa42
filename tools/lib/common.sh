# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the project's shell tools.  Sourced, not run.

# Where builds that outlive a checkout live (the test kernel, the initramfs).
NEURON_CACHE=${NEURON_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/neuron-driver}
export NEURON_CACHE

NEURON_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export NEURON_TOP

log() { echo "[$(basename "$0")] $*" >&2; }
die() { log "error: $*"; exit 1; }

# The stock 6.12 kernel release installed from Debian (newest if several).
stock_612_release() {
	local r
	r=$(ls -d /usr/src/linux-headers-6.12.*-amd64 2>/dev/null | sort -V | tail -n 1)
	[ -n "$r" ] || return 1
	echo "${r#/usr/src/linux-headers-}"
}

# The stock 6.1 kernel headers (Debian's linux-headers-amd64 from bookworm).
stock_61_kdir() {
	local r
	r=$(ls -d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null | sort -V | tail -n 1)
	[ -n "$r" ] || return 1
	echo "$r"
}

# kernel_src_extract NAME PATH...: PATHs (relative to the top of the kernel
# tree) taken from Debian's linux-source-6.12, extracted once per source
# version into their own directory.  Prints that directory.
kernel_src_extract() {
	local name=$1 ver dir tarball=/usr/src/linux-source-6.12.tar.xz
	shift
	ver=$(dpkg-query -W -f='${Version}' linux-source-6.12) || return 1
	dir="$NEURON_CACHE/ksrc-$name-$ver"
	if [ ! -f "$dir/.done" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		tar -C "$dir" --strip-components=1 -xf "$tarball" \
			"${@/#/linux-source-6.12/}" || return 1
		touch "$dir/.done"
	fi
	# Paths added to a caller's list since its directory was extracted:
	# extracted on top, without disturbing what others may be using.
	local p missing=()
	for p; do
		[ -e "$dir/$p" ] || missing+=("linux-source-6.12/$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		tar -C "$dir" --strip-components=1 -xf "$tarball" "${missing[@]}" ||
			return 1
	fi
	echo "$dir"
}

# Files for user-space tooling (checkpatch, the kselftest harness).
kernel_src_tools() {
	kernel_src_extract tools scripts/checkpatch.pl scripts/spelling.txt \
		scripts/const_structs.checkpatch \
		tools/testing/selftests/kselftest_harness.h \
		tools/testing/selftests/kselftest.h \
		tools/testing/selftests/lib.mk \
		tools/testing/selftests/kselftest/runner.sh \
		tools/testing/selftests/kselftest/module.sh \
		tools/testing/selftests/kselftest/prefix.pl \
		tools/testing/selftests/kselftest/ktap_helpers.sh \
		tools/testing/selftests/kselftest/ksft.py \
		tools/testing/selftests/run_kselftest.sh
}

# A kernel tree, not configured, that `make coccicheck` runs in: the top
# Makefile and scripts/ (coccicheck, the semantic patches), and the headers
# LINUXINCLUDE names.
kernel_src_cocci() {
	kernel_src_extract cocci Makefile scripts include arch/x86/Makefile \
		arch/x86/include
}
