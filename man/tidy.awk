# Drops the paragraph macros scdoc emits where they do nothing (after a
# heading, before a heading or another paragraph), which mandoc -Tlint
# reports, and puts the one that ends an indented block after its .RE so
# the blank line between list entries stays.
{ line[n++] = $0 }
END {
	for (i = 0; i < n; i++)
		if (line[i] == ".P" && line[i + 1] == ".RE") {
			line[i] = ".RE"
			line[i + 1] = ".P"
		}
	prev = ""
	for (i = 0; i < n; i++) {
		if (line[i] == ".P" && (prev ~ /^\.(SH|TH|P)( |$)/ || line[i + 1] ~ /^\.(SH|P)( |$)/ || i + 1 == n))
			continue
		print line[i]
		if (line[i] !~ /^\.\\"/)
			prev = line[i]
	}
}
