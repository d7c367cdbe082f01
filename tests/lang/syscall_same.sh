#!/bin/sh
# syscall_same.sh BIN WL T SYSCALL[,SYSCALL...]: runs sysc_wl T 1 under
# `BIN syscalls -e LIST` and under the language's syscall:NAME:return
# probes printing `call`, and prints "same N" when both give the same N
# lines for those syscalls (the syscalls command's time, comm and cpu
# prefix left out), else the two lists' differences.
set -u
bin=$1 wl=$2 t=$3 list=$4
probes=$(echo "$list" | tr ',' '\n' | sed 's/.*/syscall:&:return/' | paste -sd, -)
"$bin" syscalls -e "$list" -- "$wl/sysc_wl" "$t" 1 2>/dev/null |
	grep ' sysc_wl\[' | sed 's/^.* cpu[0-9]* //' | grep -v '+++ exited' >"$t/cmd.txt"
"$bin" -e "$probes /pid == cpid/ { printf(\"%s\\n\", call); }" -c "$wl/sysc_wl $t 1" 2>/dev/null |
	grep -v '^Attached ' | grep -v '^$' >"$t/lang.txt"
n=$(wc -l <"$t/cmd.txt")
if [ "$n" -gt 0 ] && cmp -s "$t/cmd.txt" "$t/lang.txt"; then
	echo "same $n"
else
	diff "$t/cmd.txt" "$t/lang.txt"
fi
