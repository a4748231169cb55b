# shellcheck shell=sh
# tests/cli/charts_lib.sh - render a chart with a real renderer and read
# its pixels (sourced after lib.sh by the chart tests).  Skips the test
# (exit 77) without rsvg-convert (Debian: librsvg2-bin) or python3.
command -v rsvg-convert >/dev/null 2>&1 || { echo "skip: no rsvg-convert"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
png_pixel="$top_srcdir/tests/cli/png_pixel.py"

# render NAME SVG W H: rsvg-convert SVG into $tmp/NAME.png without a word
# on stderr, the picture W x H pixels
render() {
	if ! rsvg-convert -o "$tmp/$1.png" "$2" 2>"$tmp/rsvg.err" ||
		[ -s "$tmp/rsvg.err" ]; then
		flunk "$1" "rsvg-convert failed or warned:" "$tmp/rsvg.err"
		return 1
	fi
	r_size=$(python3 "$png_pixel" "$tmp/$1.png")
	if [ "$r_size" != "$3 $4" ]; then
		flunk "$1" "rendered $r_size, want $3 $4"
		return 1
	fi
	pass "$1"
}

# pixel NAME PNG X,Y COLOUR WHY: the pixel at X,Y of $tmp/PNG.png is
# COLOUR ("#rrggbb")
pixel() {
	p_got=$(python3 "$png_pixel" "$tmp/$2.png" "$3")
	if [ "$p_got" = "$4" ]; then
		pass "$1"
	else
		flunk "$1" "pixel $3 is $p_got, want $4 ($5)"
	fi
}
