#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# yield.sh COMMAND...: run COMMAND so that it yields the CPUs to other work
# on the machine. nice alone does not do that under the autogroup scheduler
# (CONFIG_SCHED_AUTOGROUP, on in Debian's kernels): it orders tasks within
# their session's group only, and groups share the CPUs equally. So
# COMMAND runs in a session of its own (setsid), whose group is niced to 19
# (/proc/self/autogroup), as well as niced itself. KMEMPROF_YIELD=0 runs
# it as it is.
[ "${KMEMPROF_YIELD:-1}" = 0 ] && exec "$@"
command -v setsid > /dev/null || exec nice -n 19 "$@"
exec setsid --wait sh -c 'echo 19 > /proc/self/autogroup 2>/dev/null; exec nice -n 19 "$@"' yield "$@"
