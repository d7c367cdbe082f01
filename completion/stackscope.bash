# bash completion for stackscope.
# The commands, each command's options, which options take a value and the
# values an option allows (--format svg|folded|pprof, --unwind ...) are read
# from `stackscope [COMMAND] --help`, once per command and shell, so they
# cannot drift from the program.  -o and FILE arguments complete files, -p
# and -t process ids, the word after `--` a command.

declare -gA _stackscope_opts=() _stackscope_args=()

# _stackscope_load PROG CMD: fills _stackscope_opts[CMD] ("-F -p ...") and
# _stackscope_args["CMD OPT"] (the value list "a b c", or the argument's name
# in capitals) from PROG CMD --help.  CMD "-" is the top level.
_stackscope_load()
{
	local prog=$1 cmd=$2 help line rest opts="" in_usage=1 in_cmds=0
	local re_arg='(^|[[ ])(--?[A-Za-z][A-Za-z-]*) ([A-Za-z][A-Za-z_|]*)'
	local re_opt='^[[:space:]]+(--?[A-Za-z][A-Za-z-]*)(, (--?[A-Za-z][A-Za-z-]*))?'
	local re_cmd='^  ([a-z]+)  '

	[[ -n ${_stackscope_opts[$cmd]+set} ]] && return
	if [[ $cmd == - ]]; then
		help=$("$prog" --help 2>/dev/null)
	else
		help=$("$prog" "$cmd" --help 2>/dev/null)
	fi
	while IFS= read -r line; do
		[[ -z $line ]] && { in_usage=0; in_cmds=0; continue; }
		[[ $line == commands: ]] && { in_cmds=1; continue; }
		if ((in_cmds)); then
			[[ $line =~ $re_cmd ]] && opts+=" ${BASH_REMATCH[1]}"
			continue
		fi
		if ((in_usage)); then
			rest=$line
			while [[ $rest =~ $re_arg ]]; do
				local opt=${BASH_REMATCH[2]} arg=${BASH_REMATCH[3]}
				[[ $arg == *[a-z]* ]] && arg=${arg//|/ }
				_stackscope_args["$cmd $opt"]=$arg
				opts+=" $opt"
				rest=${rest#*"${BASH_REMATCH[0]}"}
			done
			rest=$line
			while [[ $rest =~ (^|[[ ])(--?[A-Za-z][A-Za-z-]*)[]\ ] ]]; do
				opts+=" ${BASH_REMATCH[2]}"
				rest=${rest#*"${BASH_REMATCH[0]}"}
			done
		elif [[ $line =~ $re_opt ]]; then
			opts+=" ${BASH_REMATCH[1]} ${BASH_REMATCH[3]}"
		fi
	done <<<"$help"
	[[ $cmd != - ]] && opts+=" --help"
	# one of each, in the order --help gives them
	local o seen=" " uniq=""
	for o in $opts; do
		[[ $seen == *" $o "* || $o == stackscope ]] && continue
		seen+="$o "
		uniq+=" $o"
	done
	_stackscope_opts[$cmd]=${uniq# }
}

_stackscope_pids()
{
	local d pids=()
	for d in /proc/[0-9]*; do
		pids+=("${d#/proc/}")
	done
	COMPREPLY=($(compgen -W "${pids[*]}" -- "$1"))
}

_stackscope()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local prog=${COMP_WORDS[0]} cmd="" i arg

	COMPREPLY=()
	# --format=svg: readline splits at "=" (COMP_WORDBREAKS)
	if [[ $cur == = ]]; then
		cur=""
	elif [[ $prev == = ]] && ((COMP_CWORD > 2)); then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi
	if ((COMP_CWORD == 1)); then
		_stackscope_load "$prog" -
		COMPREPLY=($(compgen -W "${_stackscope_opts[-]} -e -l --help --version" -- "$cur"))
		return
	fi
	cmd=${COMP_WORDS[1]}
	[[ $cmd == -e* ]] && cmd=run
	[[ $cmd == -* ]] && return
	# after `--`: the command to launch, then its own arguments (files)
	for ((i = 2; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} == -- ]]; then
			if ((i == COMP_CWORD - 1)); then
				COMPREPLY=($(compgen -c -- "$cur" | sort -u))
			else
				COMPREPLY=($(compgen -f -- "$cur"))
			fi
			return
		fi
	done
	_stackscope_load "$prog" "$cmd"
	arg=${_stackscope_args["$cmd $prev"]-}
	if [[ -n $arg ]]; then
		case $arg in
		FILE | INPUT | BEFORE | AFTER | PATTERN) COMPREPLY=($(compgen -f -- "$cur")) ;;
		PID* | TID*) _stackscope_pids "$cur" ;;
		*[a-z]*) COMPREPLY=($(compgen -W "$arg" -- "$cur")) ;;
		esac
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "${_stackscope_opts[$cmd]}" -- "$cur"))
		return
	fi
	case $cmd in
	run | flamegraph) COMPREPLY=($(compgen -f -- "$cur")) ;;
	esac
}

complete -o filenames -F _stackscope stackscope
