#!/bin/sh
# The plugins export Slurm's interface and nothing else: a core function
# visible from select_topo_cons_tres.so could be bound by slurmctld to another
# plugin's symbol of the same name, or the other way round.
set -eu
build=${top_builddir:-$(cd "$(dirname "$0")/.." && pwd)/_build}
bad=0
check() { # so, allowed-pattern
	so=$build/plugin/.libs/$1
	[ -f "$so" ] || { echo "exports: $so not built"; bad=1; return; }
	extra=$(nm -D --defined-only "$so" | awk '{ print $3 }' | grep -Ev "$2" || true)
	if [ -n "$extra" ]; then
		echo "exports: $1 exports symbols outside Slurm's interface:"
		echo "$extra" | sed 's/^/  /'
		bad=1
	else
		echo "exports: $1: $(nm -D --defined-only "$so" | wc -l) symbols, all Slurm's"
	fi
}
check select_topo_cons_tres.so '^(plugin_(name|type|id|version)|init|fini|select_p_[a-z_]+|slurm_conf|node_record_table_ptr|job_list|part_list|node_record_count|last_job_update)$'
check job_submit_topo.so '^(plugin_(name|type|version)|init|fini|job_(submit|modify))$'
check spank_topo.so '^(plugin_(name|type|version)|slurm_spank_[a-z_]+)$'
# spank_topo.so links only the policy registry: no GLPK, json-c or hwloc.
if ldd "$build/plugin/.libs/spank_topo.so" 2>/dev/null | grep -E 'glpk|json-c|hwloc'; then
	echo "exports: spank_topo.so links a library it does not use"
	bad=1
fi
exit $bad
