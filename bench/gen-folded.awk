# gen-folded.awk — writes a synthetic folded-stacks file shaped like a
# whole-system profile: process names, user frames, kernel frames (_[k]),
# stacks sharing prefixes as real call trees do, a long tail of counts.
#
#   awk -v stacks=200000 -v seed=1 -f bench/gen-folded.awk >big.folded
#
# stacks (default 200000) lines are written, in no particular order (a
# renderer must sort or hash them itself); with the defaults about 84 MB
# and 10.9 million samples.  The same awk and seed give the same file.
function rnd(n) { return int(rand() * n) }
function name(i,   m) {	# a function name of 8 to 60 characters, fixed per i
	m = i % 97
	if (m < 30)
		return sprintf("mod%d::Class%d::method_%d", i % 53, i % 211, i)
	if (m < 60)
		return sprintf("lib%d_function_number_%d", i % 29, i)
	if (m < 80)
		return sprintf("std::vector<int>::_M_realloc_insert<%d>", i)
	return sprintf("f%d", i)
}
BEGIN {
	if (!stacks) stacks = 200000
	if (seed == "") seed = 1
	srand(seed)
	nfunc = 20000; nk = 2000; ncomm = 40; keep = 4096
	for (i = 0; i < nfunc; i++) fn[i] = name(i)
	for (i = 0; i < nk; i++) kf[i] = sprintf("ksys_call_%d_[k]", i)
	for (i = 0; i < ncomm; i++) comm[i] = sprintf("worker-%d", i)
	for (s = 0; s < stacks; s++) {
		# a prefix of a recent stack (its frames before `cut`), then new frames
		if (s && rnd(10) < 9) {
			p = rnd(s < keep ? s : keep)
			d = pd[p]
			cut = 1 + rnd(d)
			line = ""
			for (j = 0; j < cut; j++) {
				f[j] = pf[p, j]
				line = j ? line ";" f[j] : f[j]
			}
		} else {
			cut = 1
			f[0] = comm[rnd(ncomm)]
			line = f[0]
		}
		depth = cut + 1 + rnd(15)
		if (depth > 60) depth = 60
		for (j = cut; j < depth; j++) {
			f[j] = fn[int(nfunc * rand() * rand())]	# some functions far more common
			line = line ";" f[j]
		}
		nkern = rnd(4) == 0 ? 1 + rnd(8) : 0	# a quarter of the stacks enter the kernel
		for (j = 0; j < nkern; j++)
			line = line ";" kf[rnd(nk)]
		# a long tail: most stacks are rare, a few are very hot
		count = 1 + int(-log(1 - rand()) * 36)
		if (rnd(100) == 0) count *= 50
		print line, count
		slot = s % keep
		pd[slot] = depth
		for (j = 0; j < depth; j++) pf[slot, j] = f[j]
	}
}
