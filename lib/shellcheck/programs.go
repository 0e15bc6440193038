package shellcheck

import "strings"

// argRule checks the arguments of one allowed program and returns the first
// one that breaks G11 (as written), or "".
type argRule func(prog token, args []token) string

// programs is the read-only program list of docs/review-round.md "G11 agy shell lines", as
// docs/review-round.md §4 tabulates it, with each program's argument rule.
var programs map[string]argRule

func init() {
	none := func(token, []token) string { return "" }
	programs = map[string]argRule{
		"ls": none, "pwd": none, "cat": none, "head": none, "wc": none, "stat": none,
		"true": none, "cut": none, "tr": none, "nl": none, "grep": none, "egrep": none,
		"fgrep": none, "diff": none,
		// tail: -f, -F, --follow would never end. A short cluster holding f
		// or F follows too (-qf, and the obsolete -5f).
		"tail": forbidden{short: "fF", long: []string{"follow"}}.check,
		// rg: these run other programs (preprocessors, decompressors, the
		// hostname program).
		"rg": forbidden{short: "z", long: []string{"pre", "pre-glob", "hostname-bin", "search-zip"}}.check,
		// find: the actions that delete, execute or write files.
		"find": forbidden{exact: []string{"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"}}.check,
		// sort: writing the output or temporary files elsewhere, and the
		// compression program.
		"sort": forbidden{short: "oT", long: []string{"output", "compress-program", "temporary-directory"}}.check,
		// file: -C compiles a magic file and writes it; -z and -Z look
		// inside compressed files and may run a decompressor, as rg -z does
		// (decided here: the list keeps only programs that can neither
		// write nor execute, docs/review-round.md §4).
		"file": forbidden{short: "CzZ", long: []string{"compile", "uncompress", "uncompress-noreport"}}.check,
		// uniq: a second operand is an output file it writes (decided here,
		// same reason).
		"uniq": checkUniq,
		"sed":  checkSed,
	}
}

// forbidden is a program's forbidden argument prefixes (docs/review-round.md §4). An
// argument is read the way the program's option parser reads it:
//   - short: option letters; a single-dash argument holding any of them
//     anywhere in its cluster is forbidden (-o, -ofile, -ro);
//   - long: GNU long option names; --name, --name=value and every
//     abbreviation getopt_long would accept (--out for --output) are
//     forbidden;
//   - exact: whole arguments (find's primaries, which are not abbreviated;
//     -executable stays allowed).
type forbidden struct {
	short string
	long  []string
	exact []string
}

func (f forbidden) check(_ token, args []token) string {
	for _, a := range args {
		v := a.val
		for _, e := range f.exact {
			if v == e {
				return a.raw
			}
		}
		if strings.HasPrefix(v, "--") {
			name, _, _ := strings.Cut(v[2:], "=")
			if name == "" {
				continue // -- ends the options
			}
			for _, l := range f.long {
				if strings.HasPrefix(l, name) {
					return a.raw
				}
			}
			continue
		}
		if len(v) > 1 && v[0] == '-' && strings.ContainsAny(v[1:], f.short) && f.short != "" {
			return a.raw
		}
	}
	return ""
}

// checkUniq allows at most one operand: uniq writes its second operand.
func checkUniq(_ token, args []token) string {
	operands := 0
	optsDone := false
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case optsDone || v == "-" || !strings.HasPrefix(v, "-"):
			operands++
			if operands > 1 {
				return args[i].raw
			}
		case v == "--":
			optsDone = true
		case strings.HasPrefix(v, "--"):
			name, _, eq := strings.Cut(v[2:], "=")
			if !eq && takesArg(name, "check-chars", "skip-chars", "skip-fields") {
				i++
			}
		default:
			// -f N, -s N, -w N take a value, attached or as the next argument.
			for j := 1; j < len(v); j++ {
				if strings.IndexByte("fsw", v[j]) >= 0 {
					if j == len(v)-1 {
						i++
					}
					break
				}
			}
		}
	}
	return ""
}

// takesArg: name is a (possibly abbreviated) long option among longs.
func takesArg(name string, longs ...string) bool {
	for _, l := range longs {
		if name != "" && strings.HasPrefix(l, name) {
			return true
		}
	}
	return false
}
