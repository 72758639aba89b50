#!/bin/sh
# Run rnic-wire-gen, decode its pcap with rnic-pcap, and check that
# rnic-pcap's summary line equals the counts the generator built, for the
# full capture and for the --clean one.
# usage: gen_pcap_check.sh RNIC_WIRE_GEN RNIC_PCAP
set -eu
gen=$1
pcaptool=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/rnic-wire-gen.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
fail=0

for mode in full clean; do
	if [ "$mode" = clean ]; then flag=--clean; else flag=; fi
	out=$("$gen" "$dir/$mode.pcap" $flag)
	expect=$(printf '%s\n' "$out" | sed -n 's/^expect: //p')
	if [ -z "$expect" ]; then
		echo "FAIL $mode: no expect line from rnic-wire-gen: $out"
		fail=1
		continue
	fi
	# Per-frame lines and the summary: rnic-pcap must exit 0.
	"$pcaptool" "$dir/$mode.pcap" >"$dir/$mode.txt"
	summary=$(sed -n 's/^summary: //p' "$dir/$mode.txt")
	frames=$(printf '%s\n' "$expect" | sed 's/^frames=\([0-9]*\) .*/\1/')
	lines=$(grep -c -v '^summary: ' "$dir/$mode.txt" || true)
	echo "$mode: expect:  $expect"
	echo "$mode: summary: $summary"
	if [ "$summary" != "$expect" ]; then
		echo "FAIL $mode: rnic-pcap summary differs from the generator's counts"
		cat "$dir/$mode.txt"
		fail=1
	fi
	if [ "$lines" != "$frames" ]; then
		echo "FAIL $mode: $lines per-frame lines for $frames frames"
		fail=1
	fi
	# Quiet mode prints the same summary and nothing else.
	quiet=$("$pcaptool" -q "$dir/$mode.pcap")
	if [ "$quiet" != "summary: $summary" ]; then
		echo "FAIL $mode: rnic-pcap -q printed: $quiet"
		fail=1
	fi
done

if [ "$fail" = 0 ]; then
	echo "PASS"
fi
exit "$fail"
