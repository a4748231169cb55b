#!/bin/bash
# slurm-cluster.sh - an emulated Slurm cluster on one host (loopback), for
# the tests in tests/slurm and the demo: munged on a private socket,
# slurmctld and one `slurmd -D -N nX` per node, all under DIR.
#
#   slurm-cluster.sh start DIR     generate the configuration and start
#   slurm-cluster.sh stop DIR      stop every daemon started under DIR
#   slurm-cluster.sh status DIR    daemons alive, sinfo summary
#   slurm-cluster.sh restart-ctld DIR   restart slurmctld only (state kept)
#   slurm-cluster.sh env DIR       print `export SLURM_CONF=...`
#
# Settings for start (environment):
#   NODES=64              node count (n0 .. n{NODES-1})
#   SELECT=topo           topo (SelectType=select/topo_cons_tres) | cons_tres |
#                         linear (SelectType=select/$SELECT)
#   TOPO_CONF=FILE        topo.conf to install next to slurm.conf (topo)
#   PLUGIN_BUILDDIR=DIR   build tree holding plugin/.libs/select_topo_cons_tres.so
#   PORT_BASE=N           slurmctld port; slurmd ports N+1 .. N+NODES
#                         (default: a free range picked at random)
#   NODE_CPUS=4,8         CPUs per node: one value for every node, or
#                         two for two node kinds (the first half of the
#                         nodes with the first, the rest with the second,
#                         each with 1000 MB of RealMemory per CPU)
#   BATCH_NODES=ALL       nodes of the default partition, batch
#   BATCH_OPTS="OverSubscribe=EXCLUSIVE"  its other options
#   SELECT_PARAMS=CR_Core SelectTypeParameters (empty: no such line, the
#                         SelectType's default)
#   NODE_GRES=NAME:COUNT  a count-only GRES on every node (GresTypes=,
#                         Gres= and a gres.conf line)
#   NODE_SPEC="..."       the nodes' CPUs=... Sockets=... part instead of
#                         NODE_CPUS's (one kind)
#   CONFIG_OVERRIDES=1    0: no SlurmdParameters=config_overrides (slurmd
#                         then registers what the hardware has)
#   NODE_WAIT=120         seconds to wait for every node to be idle
#   SLURM_EXTRA="..."     extra slurm.conf lines
#   CTLD_CPUS=LIST        run slurmctld on these CPUs only (taskset -c
#                         LIST, e.g. 0), and with NODE_CPUSET=LIST every
#                         slurmd, with the jobs it starts, on those (e.g.
#                         1-3): a controller host apart from the compute
#                         nodes, as on a real cluster (bench.sh)
#   SLURM_PREFIX=DIR      a Slurm installed under DIR (scripts/setup-slurm.sh)
#                         instead of Debian's: its sbin/ and bin/ first in
#                         PATH, its lib/slurm as the stock plugins
#
# Runs as root (SlurmUser=root).  Daemons are started with setsid and
# recorded in DIR/pids; `stop` kills exactly those process groups.
set -u

die() { echo "slurm-cluster.sh: $*" >&2; exit 1; }

if [ -n "${SLURM_PREFIX:-}" ]; then
	[ -x "$SLURM_PREFIX/sbin/slurmctld" ] ||
		die "SLURM_PREFIX=$SLURM_PREFIX: no sbin/slurmctld there"
	PATH=$SLURM_PREFIX/sbin:$SLURM_PREFIX/bin:$PATH
	export PATH
	SYS_PLUGINDIR=${SYS_PLUGINDIR:-$SLURM_PREFIX/lib/slurm}
fi
SYS_PLUGINDIR=${SYS_PLUGINDIR:-$(ls -d /usr/lib/*/slurm-wlm 2>/dev/null | head -n 1)}

port_free() {
	# 0 when nothing listens on any port of [$1, $2].
	ss -Htan 2>/dev/null | awk -v lo="$1" -v hi="$2" '
		{ n = split($4, a, ":"); p = a[n] + 0; if (p >= lo && p <= hi) bad = 1 }
		END { exit bad }'
}

pick_ports() {
	local tries=0 base lo top
	# Below the kernel's ephemeral range, so that no client socket (the
	# daemons' own RPCs, a test's last cluster going down) can take a
	# port between this check and the daemons' bind.
	lo=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
	top=$(( ${lo:-32768} - NODES - 2 ))
	[ "$top" -gt 12000 ] || top=60000
	while [ $tries -lt 50 ]; do
		base=$(( 10000 + (RANDOM % ((top - 10000) / 100)) * 100 ))
		if port_free "$base" $(( base + NODES + 1 )); then
			echo "$base"; return 0
		fi
		tries=$(( tries + 1 ))
	done
	return 1
}

# The running slurmctld: the one started here, or after a 24.11
# `scontrol reconfigure` (which execs a new slurmctld that takes over)
# the one in SlurmctldPidFile.
ctld_pid() {
	local p
	if [ -f "$DIR/slurmctld.pidfile" ]; then
		p=$(cat "$DIR/slurmctld.pidfile" 2>/dev/null)
		[ -n "$p" ] && kill -0 "$p" 2>/dev/null && { echo "$p"; return 0; }
	fi
	[ -f "$DIR/ctld.pid" ] && cat "$DIR/ctld.pid"
}

start_ctld() {
	setsid ${CTLD_CPUS:+taskset -c "$CTLD_CPUS"} slurmctld 9>&- -D -i \
		-f "$DIR/etc/slurm.conf" \
		>>"$DIR/log/slurmctld.out" 2>&1 < /dev/null &
	echo $! > "$DIR/ctld.pid"
	echo "$! slurmctld" >> "$DIR/pids"
}

wait_ctld() {
	local i
	for i in $(seq 1 100); do
		if SLURM_CONF="$DIR/etc/slurm.conf" scontrol ping 2>/dev/null |
			grep -q "is UP"; then
			return 0
		fi
		if ! kill -0 "$(ctld_pid)" 2>/dev/null; then
			echo "slurm-cluster.sh: slurmctld exited; log:" >&2
			tail -n 20 "$DIR/log/slurmctld.log" "$DIR/log/slurmctld.out" >&2 2>/dev/null
			return 1
		fi
		sleep 0.2
	done
	echo "slurm-cluster.sh: slurmctld did not answer" >&2
	return 1
}

# NodeName= lines of NODE_CPUS (see above): n0 .. n{NODES-1}, ports from
# PORT_BASE + 1, Sockets x Cores to match the CPUs.
node_line() { # FIRST LAST CPUS
	local s=1 c=$3
	[ $(( $3 % 2 )) = 0 ] && [ "$3" -gt 4 ] && { s=2; c=$(( $3 / 2 )); }
	local spec="CPUs=$3 Sockets=$s CoresPerSocket=$c ThreadsPerCore=1 RealMemory=$(( 1000 * $3 ))"
	echo "NodeName=n[$1-$2] NodeHostname=localhost NodeAddr=127.0.0.1 Port=$(( PORT_BASE + 1 + $1 ))-$(( PORT_BASE + 1 + $2 )) ${NODE_SPEC:-$spec} Feature=cpus$3${NODE_GRES:+ Gres=$NODE_GRES} State=UNKNOWN"
}

node_lines() {
	local a=${NODE_CPUS%%,*} b=${NODE_CPUS#*,} half
	if [ "$a" = "$NODE_CPUS" ] || [ "$NODES" -lt 2 ]; then
		node_line 0 $(( NODES - 1 )) "$a"
	else
		half=$(( NODES / 2 ))
		node_line 0 $(( half - 1 )) "$a"
		node_line "$half" $(( NODES - 1 )) "$b"
	fi
}

cmd_start() {
	NODES=${NODES:-64}
	NODE_CPUS=${NODE_CPUS:-4,8}
	case $NODE_CPUS in
	[1-9]|[1-9][0-9]|[1-9],[1-9]|[1-9],[1-9][0-9]|[1-9][0-9],[1-9][0-9]) ;;
	*) die "NODE_CPUS=$NODE_CPUS: expected N or N,M (CPUs per node, 1-99)" ;;
	esac
	SELECT=${SELECT:-topo}
	[ "$(id -u)" = 0 ] || die "must run as root (the emulated cluster runs SlurmUser=root)"
	command -v slurmctld >/dev/null && command -v slurmd >/dev/null &&
		command -v munged >/dev/null || die "slurmctld, slurmd and munged are required"
	[ -z "${CTLD_CPUS:-}${NODE_CPUSET:-}" ] || command -v taskset >/dev/null ||
		die "CTLD_CPUS/NODE_CPUSET need taskset (util-linux)"
	[ -n "$SYS_PLUGINDIR" ] || die "Slurm's plugin directory not found"
	mkdir -p "$DIR"/{etc,log,state,spool,munge,plugins} || die "cannot create $DIR"
	: > "$DIR/pids"
	chmod 755 "$DIR" "$DIR/munge"

	# munged on a private socket.
	dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 2>/dev/null
	chmod 400 "$DIR/munge/munge.key"
	setsid munged 9>&- --force --socket="$DIR/munge/munge.socket.2" \
		--key-file="$DIR/munge/munge.key" \
		--pid-file="$DIR/munge/munged.pid" \
		--seed-file="$DIR/munge/munge.seed" \
		--log-file="$DIR/log/munged.log" --foreground \
		</dev/null >/dev/null 2>&1 &
	echo "$! munged" >> "$DIR/pids"
	for i in $(seq 1 50); do
		[ -S "$DIR/munge/munge.socket.2" ] && break
		sleep 0.1
	done
	[ -S "$DIR/munge/munge.socket.2" ] || die "munged did not start"

	# PluginDir: Debian's plugins plus ours.
	ln -sf "$SYS_PLUGINDIR"/*.so "$DIR/plugins/"
	if [ -n "${PLUGIN_BUILDDIR:-}" ]; then
		for so in select_topo_cons_tres spank_topo job_submit_topo; do
			[ -f "$PLUGIN_BUILDDIR/plugin/.libs/$so.so" ] ||
				die "$PLUGIN_BUILDDIR/plugin/.libs/$so.so not built"
			rm -f "$DIR/plugins/$so.so"
			cp "$PLUGIN_BUILDDIR/plugin/.libs/$so.so" "$DIR/plugins/$so.so"
		done
		echo "required $DIR/plugins/spank_topo.so" > "$DIR/etc/plugstack.conf"
	else
		: > "$DIR/etc/plugstack.conf"
	fi
	case $SELECT in topo) select_type=topo_cons_tres ;; *) select_type=$SELECT ;; esac
	[ -f "$DIR/plugins/select_$select_type.so" ] ||
		die "select_$select_type.so not in the plugin directory (set PLUGIN_BUILDDIR)"

	# A range picked here can be taken by another cluster starting at
	# the same moment (make check runs several) between pick_ports and
	# slurmctld's bind: then another range, up to five times.
	local picked='' tries=0
	[ -n "${PORT_BASE:-}" ] || picked=1
	last=$(( NODES - 1 ))
	while :; do
		PORT_BASE=${PORT_BASE:-$(pick_ports)} || die "no free port range"
		echo "$PORT_BASE" > "$DIR/port_base"
		cat > "$DIR/etc/slurm.conf" <<EOF
# generated by slurm-cluster.sh
ClusterName=stopo
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$PORT_BASE
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$DIR/munge/munge.socket.2
CredType=cred/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/%n
SlurmctldPidFile=$DIR/slurmctld.pidfile
SlurmdPidFile=$DIR/spool/slurmd-%n.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
PluginDir=$DIR/plugins
PlugStackConfig=$DIR/etc/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
$([ "${CONFIG_OVERRIDES:-1}" = 1 ] && echo "SlurmdParameters=config_overrides")
SelectType=select/$select_type
$([ "$SELECT" = topo ] && echo "JobSubmitPlugins=topo")
$([ -n "${SELECT_PARAMS-CR_Core}" ] && echo "SelectTypeParameters=${SELECT_PARAMS-CR_Core}")
$([ -n "${NODE_GRES:-}" ] && echo "GresTypes=${NODE_GRES%%:*}")
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,bf_resolution=1,sched_min_interval=100000,bf_continue
MpiDefault=none
MailProg=/bin/true
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
MinJobAge=600
KillWait=1
InactiveLimit=0
MessageTimeout=20
SlurmdTimeout=300
SlurmctldTimeout=60
$(node_lines)
PartitionName=batch Nodes=${BATCH_NODES:-ALL} Default=YES MaxTime=INFINITE State=UP ${BATCH_OPTS-OverSubscribe=EXCLUSIVE}
${SLURM_EXTRA:-}
EOF
		if [ -n "${NODE_GRES:-}" ]; then
			echo "Name=${NODE_GRES%%:*} Count=${NODE_GRES#*:}" > "$DIR/etc/gres.conf"
		fi
		if [ -n "${TOPO_CONF:-}" ]; then
			cp "$TOPO_CONF" "$DIR/etc/topo.conf" || die "cannot copy $TOPO_CONF"
		fi
		for i in $(seq 0 $last); do
			mkdir -p "$DIR/spool/n$i"
		done

		start_ctld
		wait_ctld && break
		tries=$(( tries + 1 ))
		# slurmctld gone, munged kept: its logs set aside
		if [ -n "$picked" ] && [ $tries -lt 5 ] &&
		   ! kill -0 "$(ctld_pid)" 2>/dev/null &&
		   cat "$DIR/log/slurmctld.log" "$DIR/log/slurmctld.out" 2>/dev/null |
			grep -q "Address already in use"; then
			echo "slurm-cluster.sh: port $PORT_BASE was taken at slurmctld's bind; another range" >&2
			for f in "$DIR"/log/slurmctld.log "$DIR"/log/slurmctld.out; do
				[ -f "$f" ] && mv "$f" "$f.port$PORT_BASE"
			done
			sed -i '/ slurmctld$/d' "$DIR/pids"
			rm -f "$DIR/ctld.pid" "$DIR/slurmctld.pidfile"
			PORT_BASE=
			continue
		fi
		cmd_stop
		exit 1
	done
	for i in $(seq 0 $last); do
		start_slurmd "$i"
	done
	# Wait until every node is idle.  On a loaded machine a slurmd can die
	# at start (a registration timeout); restart any that is gone, once a
	# few seconds have passed, and say which ones did.
	for i in $(seq 1 $(( ${NODE_WAIT:-120} * 5 ))); do
		idle=$(SLURM_CONF="$DIR/etc/slurm.conf" sinfo -h -t idle -o '%D' 2>/dev/null | awk '{s += $1} END {print s + 0}')
		[ "$idle" -ge "$NODES" ] && return 0
		[ $(( i % 50 )) -eq 0 ] && restart_dead_slurmds
		sleep 0.2
	done
	echo "slurm-cluster.sh: only $idle of $NODES nodes idle" >&2
	SLURM_CONF="$DIR/etc/slurm.conf" sinfo >&2
	for n in $(SLURM_CONF="$DIR/etc/slurm.conf" sinfo -h -N -t unk,down,drain -o '%N' 2>/dev/null); do
		echo "--- $n: slurmd output" >&2
		tail -n 20 "$DIR/log/slurmd-$n.out" >&2 2>/dev/null
		tail -n 20 "$DIR/log/slurmd-$n.log" >&2 2>/dev/null
	done
	return 1
}

start_slurmd() {
	setsid ${NODE_CPUSET:+taskset -c "$NODE_CPUSET"} slurmd 9>&- -D \
		-N "n$1" -f "$DIR/etc/slurm.conf" \
		</dev/null >>"$DIR/log/slurmd-n$1.out" 2>&1 &
	echo "$! slurmd-n$1" >> "$DIR/pids"
	echo "$!" > "$DIR/slurmd-n$1.pid"
}

restart_dead_slurmds() {
	local f n pid
	for f in "$DIR"/slurmd-n*.pid; do
		[ -f "$f" ] || continue
		pid=$(cat "$f")
		kill -0 "$pid" 2>/dev/null && continue
		n=${f##*/slurmd-n}
		n=${n%.pid}
		echo "slurm-cluster.sh: slurmd n$n exited at start; starting it again" >&2
		tail -n 5 "$DIR/log/slurmd-n$n.out" >&2 2>/dev/null
		start_slurmd "$n"
	done
}

cmd_stop() {
	[ -f "$DIR/pids" ] || return 0
	# A slurmctld that a reconfigure started (24.11) is not in pids.
	local cp
	cp=$(ctld_pid)
	if [ -n "$cp" ] && ! grep -q "^$cp " "$DIR/pids"; then
		echo "$cp slurmctld" >> "$DIR/pids"
	fi
	# slurmd first, then slurmctld, munged last; whole process groups
	# (setsid made each daemon a group leader).
	tac "$DIR/pids" | while read -r pid name; do
		kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
	done
	for i in $(seq 1 50); do
		alive=0
		while read -r pid name; do
			kill -0 "$pid" 2>/dev/null && alive=1
		done < "$DIR/pids"
		[ $alive = 0 ] && break
		sleep 0.1
	done
	while read -r pid name; do
		kill -KILL -- "-$pid" 2>/dev/null
		kill -KILL "$pid" 2>/dev/null
	done < "$DIR/pids"
	# Job processes run in their own sessions (slurmstepd): kill those
	# of this cluster: SLURM_CONF in their environment names DIR (22.05),
	# or an open file (the log slurmd handed down, the job's spool
	# directory) or their working directory lies in DIR (24.11's
	# stepds carry no SLURM_CONF and outlive slurmd otherwise).
	for p in $(pgrep -f "slurmstepd" 2>/dev/null); do
		# shellcheck disable=SC2010 # the symlink targets ls -l shows are the point
		if tr '\0' ' ' < "/proc/$p/environ" 2>/dev/null | grep -q "SLURM_CONF=$DIR/" ||
		   ls -l "/proc/$p/fd" "/proc/$p/cwd" 2>/dev/null | grep -q -- "-> $DIR/"; then
			kill -KILL "$p" 2>/dev/null
		fi
	done
	# The job scripts (DIR/spool/nX/jobN/slurm_script) with their
	# process groups (a stepd makes each job one), which the stepd's
	# end leaves running.
	local me pg
	me=$(ps -o pgid= -p $$ | tr -d ' ')
	for p in $(pgrep -f "$DIR/spool/" 2>/dev/null); do
		pg=$(ps -o pgid= -p "$p" 2>/dev/null | tr -d ' ')
		[ -n "$pg" ] && [ "$pg" != "$me" ] && kill -KILL -- "-$pg" 2>/dev/null
		kill -KILL "$p" 2>/dev/null
	done
	: > "$DIR/pids"
	return 0
}

cmd_status() {
	[ -f "$DIR/pids" ] || { echo "not started"; return 1; }
	up=0; down=0
	while read -r pid name; do
		if kill -0 "$pid" 2>/dev/null; then up=$((up + 1)); else down=$((down + 1)); echo "dead: $name ($pid)"; fi
	done < "$DIR/pids"
	echo "daemons alive: $up, dead: $down"
	SLURM_CONF="$DIR/etc/slurm.conf" sinfo 2>&1
	[ $down = 0 ]
}

cmd_restart_ctld() {
	local pid
	pid=$(ctld_pid)
	if [ -n "$pid" ]; then
		kill -TERM "$pid" 2>/dev/null
		for i in $(seq 1 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null
	fi
	start_ctld
	wait_ctld
}

[ $# -ge 2 ] || { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
CMD=$1
DIR=$(mkdir -p "$2" && cd "$2" && pwd) || die "bad directory $2"
case "$CMD" in
start) cmd_start ;;
stop) cmd_stop ;;
status) cmd_status ;;
restart-ctld) cmd_restart_ctld ;;
env) echo "export SLURM_CONF=$DIR/etc/slurm.conf" ;;
*) die "unknown command $CMD (start|stop|status|restart-ctld|env)" ;;
esac
