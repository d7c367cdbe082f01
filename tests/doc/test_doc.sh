# Documentation and installation: the man pages lint clean and say what
# --help says, the committed pages are what man/*.scd generate, make
# install / uninstall place and remove exactly their files, the bash
# completion completes, the agent's unit verifies.  Needs no root.

COMMANDS="profile offcpu syscalls graph flamegraph run"

# page NAME: the man page's path
page() { echo "$ROOT/man/$1.8"; }

# man_section PAGE SECTION: that section of the rendered page, one line
man_section() {
	mandoc -T ascii -O width=1000 "$1" | col -bx |
		awk -v s="$2" '/^[A-Z]/ { on = ($0 == s); next } on' | tr -s ' \n' '  ' | sed 's/^ //; s/ $//'
}

# help_usage CMD: the usage lines of `stackscope CMD --help` ("" for the
# top level), without "usage:", one line
help_usage() {
	$SS ${1:+"$1"} --help | awk '/^$/ { exit } { print }' | sed 's/^usage://' |
		tr -s ' \n' '  ' | sed 's/^ //; s/ $//'
}

# readme_synopsis CMD: the first plain ``` block of README section
# "## CMD: ..." whose first line starts with "stackscope CMD ", one line
readme_synopsis() {
	awk -v c="$1" '
		/^## / { sec = (index($0, "## " c ":") == 1); next }
		sec && !done && /^```$/ { if (inb) { done = 1; inb = 0 } else inb = 1; next }
		sec && inb { print }' "$ROOT/README.md" |
		tr -s ' \n' '  ' | sed 's/^ //; s/ $//'
}

need_mandoc() { command -v mandoc >/dev/null || skip "mandoc not installed (scripts/deps.sh test)"; }

test_man_every_command_has_a_page() {
	local c listed
	listed=$($SS --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' | sort | tr '\n' ' ')
	check '[ "$listed" = "$(echo $COMMANDS | tr " " "\n" | sort | tr "\n" " ")" ]' \
		"stackscope --help lists '$listed', the pages cover '$COMMANDS'"
	check '[ -f "$(page stackscope)" ]' "no man/stackscope.8"
	for c in $COMMANDS; do
		check '[ -f "$(page stackscope-$c)" ] && [ -f "$(page stackscope-$c).scd" ]' "no page for $c"
	done
}

test_man_lint() {
	need_mandoc
	local out
	out=$(mandoc -T lint -W warning "$ROOT"/man/*.8 2>&1)
	check '[ -z "$out" ]' "mandoc -Tlint -W warning: $out"
}

test_man_synopsis_is_help_usage() {
	need_mandoc
	local c man help
	check '[ "$(man_section "$(page stackscope)" SYNOPSIS)" = "$(help_usage "")" ]' \
		"stackscope(8) SYNOPSIS differs from stackscope --help"
	for c in $COMMANDS; do
		man=$(man_section "$(page stackscope-$c)" SYNOPSIS)
		help=$(help_usage "$c")
		check '[ "$man" = "$help" ]' "$c: man SYNOPSIS '$man' != --help usage '$help'"
	done
}

test_man_options_cover_help() {
	need_mandoc
	local c opts o
	for c in $COMMANDS; do
		opts=$(man_section "$(page stackscope-$c)" OPTIONS)
		for o in $($SS "$c" --help | grep -oE '(^|[[ |])--?[A-Za-z][A-Za-z-]*' | sed 's/^[[ |]*//' | sort -u); do
			[ "$o" = "-e" ] && [ "$c" != run ] && [ "$c" != syscalls ] && continue
			check '[[ " $opts " == *" $o"[\ ,]* ]]' "$c: --help has $o, the man page's OPTIONS do not"
		done
	done
}

test_readme_synopsis_is_help_usage() {
	local c readme n=0
	for c in $COMMANDS; do
		readme=$(readme_synopsis "$c")
		[ -z "$readme" ] && continue
		n=$((n + 1))
		check '[ "$readme" = "$(help_usage "$c")" ]' "$c: README synopsis '$readme' != --help usage"
	done
	check '[ "$n" -ge 4 ]' "only $n README synopsis blocks found"
}

test_man_pages_up_to_date() {
	command -v scdoc >/dev/null || skip "scdoc not installed (scripts/deps.sh doc)"
	local s
	for s in "$ROOT"/man/*.8.scd; do
		scdoc <"$s" >gen || fail "scdoc failed on $s"
		awk -f "$ROOT/man/tidy.awk" gen | grep -v '^\.TH ' >want
		grep -v '^\.TH ' "${s%.scd}" >have
		check 'cmp -s want have' "${s%.scd} is not what $s generates: make man"
	done
}

test_install_uninstall() {
	local want have
	make -s -C "$ROOT" BUILD="$BUILD" DESTDIR="$T/root" PREFIX=/usr install >make.log 2>&1 ||
		fail "make install: $(tail -3 make.log)"
	want=$( (echo usr/bin/stackscope usr/share/bash-completion/completions/stackscope
		cd "$ROOT/man" && for p in *.8; do echo "usr/share/man/man8/$p"; done) | tr ' ' '\n' | sort)
	have=$(cd "$T/root" && find . -type f | sed 's|^\./||' | sort)
	check '[ "$have" = "$want" ]' "installed: $(echo $have), expected: $(echo $want)"
	check '[ -x root/usr/bin/stackscope ] && [ "$(stat -c %a root/usr/bin/stackscope)" = 755 ]' "binary mode"
	check '[ "$(stat -c %a root/usr/share/man/man8/stackscope.8)" = 644 ]' "man page mode"
	check 'cmp -s root/usr/bin/stackscope "$SS"' "installed binary differs from $SS"
	check 'root/usr/bin/stackscope --version | grep -q "^stackscope "' "installed binary does not run"
	# what runs leave: the small kernel BTFs' cache
	mkdir -p -m 0700 root/var/cache/stackscope && touch root/var/cache/stackscope/profile-0.btf
	make -s -C "$ROOT" BUILD="$BUILD" DESTDIR="$T/root" PREFIX=/usr uninstall >make.log 2>&1 ||
		fail "make uninstall: $(tail -3 make.log)"
	have=$(cd "$T/root" && find . -type f)
	check '[ -z "$have" ]' "left after uninstall: $(echo $have)"
	check '[ ! -e root/var/cache/stackscope ]' "the cache directory left after uninstall"
}

# complete WORD...: COMPREPLY for the words, the last being completed
complete_words() {
	bash -c '. "$1/completion/stackscope.bash"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _stackscope
		printf "%s\n" "${COMPREPLY[@]}"' _ "$ROOT" "$@" | tr '\n' ' ' | sed 's/ $//'
}

test_bash_completion() {
	local r
	r=$(complete_words "$SS" "")
	check '[ "$r" = "profile offcpu syscalls graph run flamegraph -e -l --help --version" ]' "commands: $r"
	r=$(complete_words "$SS" off)
	check '[ "$r" = offcpu ]' "off: $r"
	r=$(complete_words "$SS" profile --unw)
	check '[ "$r" = "--unwind --unwind-rows" ]' "profile --unw: $r"
	r=$(complete_words "$SS" run --ma)
	check '[ "$r" = --map ]' "run --ma: $r"
	r=$(complete_words "$SS" profile --unwind "")
	check '[ "$r" = "kernel tables fp auto" ]' "--unwind: $r"
	r=$(complete_words "$SS" profile --format "")
	check '[ "$r" = "svg folded pprof" ]' "profile --format: $r"
	r=$(complete_words "$SS" syscalls --format "")
	check '[ "$r" = "text json trace" ]' "syscalls --format: $r"
	r=$(complete_words "$SS" syscalls --format =)
	check '[ "$r" = "text json trace" ]' "syscalls --format=: $r"
	r=$(complete_words "$SS" profile --unwind = t)
	check '[ "$r" = tables ]' "profile --unwind=t: $r"
	r=$(complete_words "$SS" offcpu --state "")
	check '[ "$r" = "any sleep disk" ]' "offcpu --state: $r"
	r=$(complete_words "$SS" graph --no)
	check '[ "$r" = "--notrace --no-args" ]' "graph --no: $r"
	r=$(complete_words "$SS" syscalls -p "$$")
	check '[[ " $r " == *" $$ "* ]]' "-p $$: $r"
	: >flame-in.folded
	r=$(cd "$T" && complete_words "$SS" profile -o flame-)
	check '[ "$r" = flame-in.folded ]' "-o flame-: $r"
	r=$(cd "$T" && complete_words "$SS" run flame-)
	check '[ "$r" = flame-in.folded ]' "run flame-: $r"
	r=$(complete_words "$SS" profile -- bas)
	check '[[ " $r " == *" bash "* ]]' "-- bas: $r"
	r=$(complete_words "$SS" profile -F "")
	check '[ -z "$r" ]' "-F offers: $r"
	# the continuous mode's options, and its -o PATTERN still a file
	r=$(complete_words "$SS" profile --pu)
	check '[ "$r" = "--push --push-queue" ]' "profile --pu: $r"
	r=$(cd "$T" && complete_words "$SS" profile --every 10s -o flame-)
	check '[ "$r" = flame-in.folded ]' "profile --every -o flame-: $r"
}

test_agent_unit_verifies() {
	command -v systemd-analyze >/dev/null || skip "systemd-analyze not installed"
	local out
	mkdir unit
	# verify wants ExecStart's binary to exist: the one just built
	sed "s|^ExecStart=/usr/local/bin/stackscope|ExecStart=$SS|" \
		"$ROOT/contrib/stackscope-agent.service" >unit/stackscope-agent.service
	out=$(systemd-analyze verify --man=no unit/stackscope-agent.service 2>&1) ||
		fail "systemd-analyze verify: $out"
	check '[ -z "$out" ]' "systemd-analyze verify: $out"
	for k in NoNewPrivileges=yes ProtectSystem=strict ProtectHome=read-only PrivateTmp=yes \
		Restart=on-failure 'CapabilityBoundingSet=CAP_BPF CAP_PERFMON' ReadWritePaths=; do
		check 'grep -q "^$k" "$ROOT/contrib/stackscope-agent.service"' "unit lacks $k"
	done
}
