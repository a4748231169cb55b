#!/bin/sh
# whatif_charts.sh - stopo whatif --svg / --html, rendered by rsvg-convert
# and checked pixel by pixel at points worked out by hand from plot.h's
# geometry: panel k's plot area spans x 80..570 (+600 in column 1) and y
# PH*(k/2) + 90 + 40 (top of the range) .. + 300 (its bottom), PH = 360.
#
# The workload: jobs 1 and 2 submitted at 0 on fattree:k=4,n=3 (64
# nodes), 32 nodes each, running 3600 s and 7200 s: both start at once,
# 100 % of the nodes busy for 1 h, 50 % for the next, no link shared.
# Policy colours: linear #4477aa (first), fattree-pods #ee6677 (second,
# drawn last: on top where the two agree).
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/charts_lib.sh"
cli_setup whatif ""

printf 'id,submit,nodes,runtime,limit\n1,0,32,3600,3600\n2,0,32,7200,7200\n' \
	>"$tmp/wl.csv"
T="--topo fattree:k=4,n=3 --workload $tmp/wl.csv --policy linear,fattree-pods -q"
LIN='#4477aa' PODS='#ee6677' WHITE='#ffffff'

# Five panels (no sweep): 90 + 3 * 360 = 1170 px high, 1200 wide.
if run $T --svg "$tmp/a.svg" --html "$tmp/a.html"; then
	render plain "$tmp/a.svg" 1200 1170
	# the legend's first swatch (x 20..50, y 45..57): linear's colour
	pixel legend_linear plain 35,51 "$LIN" "legend swatch 0"
	pixel legend_pods plain 265,51 "$PODS" "legend swatch 1"
	# Utilisation (panel 0, x 0..2 h over 490 px, y 0..100 % over 260):
	# at 0.5 h 100 % -> (80 + 122.5, 130); at 1.5 h 50 % -> (447.5, 260)
	pixel util_0.5h plain 202,130 "$PODS" "100 % busy at 0.5 h"
	pixel util_1.5h plain 447,260 "$PODS" "50 % busy at 1.5 h"
	pixel util_above plain 447,200 "$WHITE" "nothing above the line"
	# Turnarounds CDF (panel 4, oy 810): 50 % of the jobs within 1 h,
	# held to 2 h: at 1.5 h (447.5, 810 + 40 + 130)
	pixel cdf_ta plain 447,980 "$PODS" "half the turnarounds <= 1.5 h"
	# MLS over time (panel 1, column 1): 0 all along the bottom (y 390)
	pixel mls_zero plain 900,390 "$PODS" "MLS 0 %"
else
	flunk plain "exit $st" "$tmp/err"
fi
# the HTML page: the same chart inline and a row per policy
if grep -q '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="1170"' "$tmp/a.html" &&
	[ "$(grep -c '<tr><td class="p">' "$tmp/a.html")" = 2 ] &&
	grep -q '<td>75.00</td>' "$tmp/a.html"; then
	pass html
else
	flunk html "no chart or not a row per policy" "$tmp/a.html"
fi

# A gain sweep G = 0, 0.5, 1 (both policies isolate these jobs): run
# times / (1 + G), mean turnaround (3600 + 7200) / 2 / (1 + G) = 90, 60,
# 45 min (y 0..100 min), throughput 2 jobs / makespan = 24, 36, 48 per
# day (y 0..50).  Seven panels: 90 + 4 * 360 = 1530 px high.
if run $T --isolation-gain 0:1:0.5 --svg "$tmp/g.svg"; then
	render sweep "$tmp/g.svg" 1200 1530
	# panel 5 (column 1, oy 810): G 0 -> (680, 850 + 0.10 * 260 = 876),
	# G 0.5 -> (925, 954), G 1 -> (1170, 993); halfway 0 .. 0.5 on the line
	pixel ta_g0 sweep 680,876 "$PODS" "90 min at G 0"
	pixel ta_g05 sweep 925,954 "$PODS" "60 min at G 0.5"
	pixel ta_g1 sweep 1168,993 "$PODS" "45 min at G 1"
	pixel ta_mid sweep 802,915 "$PODS" "the line from G 0 to 0.5"
	# panel 6 (column 0, oy 1170): G 0 -> (80, 1210 + 26/50 * 260 = 1345.2),
	# G 1 -> (570, 1210 + 2/50 * 260 = 1220.4)
	pixel tp_g0 sweep 82,1345 "$PODS" "24 jobs/day at G 0"
	pixel tp_g1 sweep 568,1220 "$PODS" "48 jobs/day at G 1"
else
	flunk sweep "exit $st" "$tmp/err"
fi

# --array DIR with --svg: the cells (run here with --cell, as the array
# tasks do) keep their jobs, and --merge DIR draws the same chart as the
# run itself
if run $T --isolation-gain 0:1:0.5 --svg "$tmp/m.svg" --array "$tmp/arr"; then
	k=0
	while [ $k -lt 6 ] && run --array "$tmp/arr" --cell $k; do
		k=$((k + 1))
	done
	if [ $k = 6 ] && run --merge "$tmp/arr" && cmp -s "$tmp/m.svg" "$tmp/g.svg"; then
		pass array_merge
	else
		flunk array_merge "cell $k, exit $st, or not the run's chart" "$tmp/err"
	fi
else
	flunk array_merge "exit $st" "$tmp/err"
fi

# The break-even marks: the demo workload under clustered and
# fattree-pods, G 0 to 0.5; the table says where fattree-pods' mean
# turnaround crosses clustered's (G = C, about 0.052).  A dashed line of
# 2 px in fattree-pods' colour at x = 80 + C / 0.5 * 490 (+600 in panel
# 5, column 1), dashes 6 px on from the top of the plot area (panel 5:
# y 850; panel 6, oy 1170: y 1210), so rows 853 and 1213 are on one.
if run --topo fattree:k=4,n=3 --routing dmodk \
	--workload "$top_srcdir/examples/demo.swf" \
	--policy clustered,fattree-pods --isolation-gain 0:0.5:0.1 \
	--svg "$tmp/d.svg" -q; then
	c=$(sed -n 's/.*crosses 0 near G \([0-9.]*\)).*/\1/p' "$tmp/out")
	# C printed to 0.001 (0.49 px): the pixel column nearest the line,
	# which the 2-px line covers whole when off by less than 0.5 px
	x=$(awk -v c="$c" 'BEGIN { printf "%d", 80 + c / 0.5 * 490 + 0.5 }')
	render demo "$tmp/d.svg" 1200 1530
	pixel break_even_ta demo $((600 + x)),853 "$PODS" "G $c in panel 5"
	pixel break_even_tp demo $x,1213 "$PODS" "G $c in panel 6"
	pixel break_even_gap demo $x,1218 "$WHITE" "a gap of the dashes"
else
	flunk demo "exit $st" "$tmp/err"
fi

# a file that cannot be written: exit 1, said before the table
expect_fail unwritable 1 "$tmp/no/such.svg: No such file or directory" -- \
	$T --svg "$tmp/no/such.svg"
finish
