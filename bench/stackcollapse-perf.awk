#!/usr/bin/awk -f
# Fold `perf script` output into folded stacks, one "comm;outer;...;inner N"
# line per distinct stack (the format of FlameGraph's stackcollapse-perf.pl
# with --kernel, reduced to what bench/profile.sh needs).  Portable awk (mawk).
#
# Input: one block per sample, blocks separated by blank lines.  A block's
# first line is the sample header "comm pid[/tid] [cpu] time: period event:"
# (comm may contain spaces), then one frame per line, innermost first:
# "addr sym+0xoff (dso)".  Offsets are dropped, kernel frames get "_[k]",
# unknown symbols become "[dso basename]" (or "[unknown]").

function flush(    s, i) {
	if (comm != "") {
		s = comm
		for (i = n; i >= 1; i--)
			s = s ";" frame[i]
		count[s]++
	}
	comm = ""
	n = 0
}

function frame_name(line,    rest, sp, sym, dso, base) {
	sub(/^[ \t]+/, "", line)
	sp = index(line, " ")
	if (sp == 0)
		return "[unknown]"
	rest = substr(line, sp + 1)		# drop the address
	dso = ""
	if (match(rest, / \([^()]*\)$/) || match(rest, / \(.*\)$/)) {
		dso = substr(rest, RSTART + 2, RLENGTH - 3)
		rest = substr(rest, 1, RSTART - 1)
	}
	sym = rest
	sub(/\+0x[0-9a-fA-F]+$/, "", sym)
	if (sym == "" || sym == "[unknown]") {
		if (dso != "" && dso != "[unknown]") {
			base = dso
			sub(/.*\//, "", base)
			sym = "[" base "]"
		} else {
			sym = "[unknown]"
		}
	}
	gsub(/;/, ":", sym)			# ';' separates frames
	if (dso ~ /^\[kernel\./ || dso ~ /\.ko(\.[a-z]+)?$/)
		sym = sym "_[k]"
	return sym
}

/^[ \t]*$/ { flush(); next }

/^[^ \t]/ {					# sample header
	flush()
	comm = $1
	for (i = 2; i < NF; i++) {
		if ($i ~ /^[0-9]+(\/[0-9]+)?$/ && $(i + 1) ~ /^(\[[0-9]+\]|[0-9]+\.[0-9]+:)$/)
			break
		comm = comm " " $i
	}
	if (i >= NF)				# no pid field found: keep the first word
		comm = $1
	gsub(/ /, "_", comm)
	gsub(/;/, ":", comm)
	next
}

comm != "" { frame[++n] = frame_name($0) }

END {
	flush()
	for (s in count)
		print s, count[s]
}
